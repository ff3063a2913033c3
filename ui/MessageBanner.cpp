#include "ui/MessageBanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace keel {

MessageBanner::MessageBanner(QWidget *parent) : QFrame(parent), m_text(new QLabel(this))
{
    setObjectName(QStringLiteral("messageBanner"));
    setFrameShape(QFrame::StyledPanel);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 6, 6, 6);
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *close = new QToolButton(this);
    close->setText(QStringLiteral("×"));
    close->setAccessibleName(tr("Dismiss message"));
    close->setAutoRaise(true);
    layout->addWidget(m_text, 1);
    layout->addWidget(close);
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    hide();
}

void MessageBanner::showMessage(const QString &text, Kind kind)
{
    static const char *const colours[] = {"#d9ecff", "#fff3cd", "#f8d7da"};
    setStyleSheet(
        QStringLiteral("#messageBanner { background: %1; color: #202020; border-radius: 4px; }")
            .arg(QLatin1String(colours[int(kind)])));
    m_text->setText(text);
    show();
}

QString MessageBanner::text() const
{
    return isVisible() ? m_text->text() : QString();
}

} // namespace keel
