#include "ui/AttentionBar.h"

#include "ui/QueryWorker.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTimer>

namespace keel {
namespace {

constexpr int RefreshMs = 15000;

void showFigure(QPushButton *button, qint64 value, const QString &text)
{
    button->setVisible(value >= 0);
    button->setText(text);
    // Zero is good news and stays quiet; anything else asks for attention.
    button->setStyleSheet(value > 0 ? QStringLiteral("color: #c62828; font-weight: bold")
                                    : QString());
}

} // namespace

AttentionBar::AttentionBar(QueryWorker *worker, QWidget *parent)
    : QWidget(parent), m_worker(worker), m_title(new QLabel(tr("Needs a person now:"), this)),
      m_sagas(new QPushButton(this)), m_messages(new QPushButton(this)),
      m_notifications(new QPushButton(this)), m_cases(new QPushButton(this)),
      m_notices(new QPushButton(this)), m_proposals(new QPushButton(this)),
      m_breaks(new QPushButton(this)), m_timer(new QTimer(this))
{
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(m_title);
    const std::pair<QPushButton *, QString> links[] = {
        {m_sagas, QStringLiteral("sagas")},          {m_cases, QStringLiteral("suspense")},
        {m_notices, QStringLiteral("notices")},      {m_messages, QStringLiteral("outbox")},
        {m_notifications, QStringLiteral("outbox")}, {m_proposals, QStringLiteral("approvals")},
        {m_breaks, QStringLiteral("recon")}};
    for (const auto &[button, view] : links) {
        button->setFlat(true);
        button->setCursor(Qt::PointingHandCursor);
        button->setProperty("view", view);
        button->hide();
        connect(button, &QPushButton::clicked, this,
                [this, target = view] { Q_EMIT openRequested(target); });
        row->addWidget(button);
    }
    row->addStretch(1);
    setAccessibleName(tr("Needs a person now"));
    m_timer->setInterval(RefreshMs);
    connect(m_timer, &QTimer::timeout, this, &AttentionBar::refresh);
}

QPushButton *AttentionBar::button(const QString &view) const
{
    for (QPushButton *button : {m_sagas, m_cases, m_notices, m_messages, m_proposals, m_breaks})
        if (button->property("view").toString() == view)
            return button;
    return nullptr;
}

void AttentionBar::setScope(const AttentionScope &scope)
{
    m_scope = scope;
    m_timer->start();
    refresh();
}

void AttentionBar::refresh()
{
    const AttentionScope scope = m_scope;
    m_worker->submit<AttentionCounts>(
        this, [scope](QSqlDatabase db) { return Attention::load(db, scope); },
        [this](const Result<AttentionCounts> &counts) {
            if (counts)
                show(*counts);
        });
}

void AttentionBar::show(const AttentionCounts &counts)
{
    m_counts = counts;
    showFigure(m_sagas, counts.stuckSagas, tr("%n stuck saga(s)", nullptr, int(counts.stuckSagas)));
    showFigure(m_cases, counts.overdueCases,
               tr("%n case(s) past deadline", nullptr, int(counts.overdueCases)));
    showFigure(m_notices, counts.channelNotices,
               tr("%n channel notice(s) for a person", nullptr, int(counts.channelNotices)));
    showFigure(m_messages, counts.parkedMessages,
               tr("%n parked message(s)", nullptr, int(counts.parkedMessages)));
    showFigure(m_notifications, counts.parkedNotifications,
               tr("%n notification(s) that gave up", nullptr, int(counts.parkedNotifications)));
    showFigure(m_proposals, counts.waitingProposals,
               tr("%n proposal(s) waiting", nullptr, int(counts.waitingProposals)));
    showFigure(m_breaks, counts.reconBreaks,
               tr("%n reconciliation break(s)", nullptr, int(counts.reconBreaks)));
    m_title->setVisible(counts.stuckSagas >= 0 || counts.parkedMessages >= 0 ||
                        counts.parkedNotifications >= 0 || counts.overdueCases >= 0 ||
                        counts.waitingProposals >= 0 || counts.reconBreaks >= 0);
    Q_EMIT refreshed();
}

} // namespace keel
