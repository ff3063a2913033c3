#include "ui/ActionReviewPane.h"

#include "core/read/HistoryQuery.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace keel {
namespace {

QTableWidget *table(const QStringList &headers, const QString &name, QWidget *parent)
{
    auto *view = new QTableWidget(0, int(headers.size()), parent);
    view->setHorizontalHeaderLabels(headers);
    view->setAccessibleName(name);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(true);
    return view;
}

void fill(QTableWidget *view, int row, const QStringList &cells)
{
    for (int column = 0; column < cells.size(); ++column) {
        auto *cell = new QTableWidgetItem(cells[column]);
        if (column > 0 && view->columnCount() == 4)
            cell->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        view->setItem(row, column, cell);
    }
}

} // namespace

ActionReviewPane::ActionReviewPane(QWidget *parent)
    : QWidget(parent), m_summary(new QLabel(this)),
      m_targets(
          table({tr("Target"), tr("Version it must still have")}, tr("Frozen targets"), this)),
      m_postings(table({tr("Account"), tr("Posting"), tr("Balance before"), tr("Balance after")},
                       tr("Postings"), this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setAccessibleName(tr("What executing will do"));
    layout->addWidget(m_summary);
    auto *row = new QHBoxLayout;
    row->addWidget(m_targets, 1);
    row->addWidget(m_postings, 2);
    layout->addLayout(row);
    clear();
}

void ActionReviewPane::clear()
{
    m_summary->setText(tr("Select a proposal to see what executing it will do."));
    m_targets->setRowCount(0);
    m_postings->setRowCount(0);
    m_postings->hide();
}

void ActionReviewPane::show(const ActionReview &review)
{
    m_summary->setText(tr("#%1 %2 will touch %n row(s), each only if still at the version "
                          "below; content %3",
                          nullptr, int(review.targets.size()))
                           .arg(review.record.id)
                           .arg(review.record.kind, review.record.contentHash.left(16)));
    m_targets->setRowCount(int(review.targets.size()));
    for (int row = 0; row < review.targets.size(); ++row)
        fill(m_targets, row, {review.targets[row].id, review.targets[row].version});
    m_targets->resizeColumnsToContents();
    m_postings->setVisible(!review.postings.isEmpty());
    m_postings->setRowCount(int(review.postings.size()));
    const auto money = [&](qint64 amount) -> QString {
        return HistoryQuery::formatAmount(amount, review.exponent) + u' ' + review.currency;
    };
    for (int row = 0; row < review.postings.size(); ++row) {
        const PostingPreview &line = review.postings[row];
        fill(m_postings, row,
             {line.account, money(line.amount), money(line.balanceBefore),
              money(line.balanceAfter)});
    }
    m_postings->resizeColumnsToContents();
}

} // namespace keel
