#include "ui/PagedListPane.h"

#include <QHBoxLayout>
#include <QPushButton>
#include <QVBoxLayout>
#include <QWidget>

namespace keel {

QWidget *pagedListPane(QWidget *list, QPushButton *more, QWidget *parent)
{
    auto *pane = new QWidget(parent);
    auto *layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(list, 1);
    auto *moreRow = new QHBoxLayout;
    moreRow->addStretch(1);
    moreRow->addWidget(more);
    layout->addLayout(moreRow);
    more->setEnabled(false); // until a full page says there may be more
    return pane;
}

} // namespace keel
