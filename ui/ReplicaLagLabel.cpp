#include "ui/ReplicaLagLabel.h"

#include "ui/QueryWorker.h"

namespace keel {
namespace {

constexpr int AskEveryMs = 5000;
// Behind by more than this, the word stands out.
constexpr qint64 NoticeableSeconds = 30;

} // namespace

ReplicaLagLabel::ReplicaLagLabel(QueryWorker *primary, QueryWorker *replica, QWidget *parent)
    : QLabel(parent), m_primary(primary), m_replica(replica)
{
    setAccessibleName(tr("Read replica lag"));
    setToolTip(tr("The dashboards and the payment history are read from the replica; other "
                  "views and every action use the primary."));
    setText(tr("Replica: asking…"));
    m_timer.setInterval(AskEveryMs);
    connect(&m_timer, &QTimer::timeout, this, &ReplicaLagLabel::refresh);
    m_timer.start();
    refresh();
}

// An ask left unanswered (a server gone silent holds its worker until TCP
// gives up) is overtaken: the label says how long it has waited, a new ask
// goes out, and a late answer to the old one is dropped.
void ReplicaLagLabel::refresh()
{
    if (m_asked.isValid() && m_asked.elapsed() < 2 * AskEveryMs)
        return;
    if (m_asked.isValid())
        displayWaiting(m_asked.elapsed() / 1000);
    const quint64 ask = ++m_asks;
    m_asked.start();
    const auto answered = [this, ask](const std::optional<ReplicaLag> &lag) {
        if (ask != m_asks)
            return;
        m_asked.invalidate();
        display(lag);
    };
    m_primary->submit<PrimaryPosition>(
        this, [](QSqlDatabase db) { return primaryWalPosition(db); },
        [this, answered](const Result<PrimaryPosition> &position) {
            if (!position)
                return answered(std::nullopt);
            m_replica->submit<ReplicaLag>(
                this, [at = *position](QSqlDatabase db) { return replicaLag(db, at); },
                [answered](const Result<ReplicaLag> &lag) {
                    answered(lag ? std::optional<ReplicaLag>(*lag) : std::nullopt);
                });
        });
}

void ReplicaLagLabel::displayWaiting(qint64 seconds)
{
    m_lag.reset();
    setText(tr("Replica: no answer for %n s", nullptr, int(std::min<qint64>(seconds, 1 << 30))));
    setBold(true);
    Q_EMIT lagChanged();
}

void ReplicaLagLabel::display(const std::optional<ReplicaLag> &lag)
{
    m_lag = lag;
    bool noticeable = false;
    if (!lag)
        setText(tr("Replica: lag unknown"));
    else if (!lag->standby) {
        setText(tr("Replica: not a standby"));
        noticeable = true; // promoted, perhaps: what it shows may not be the primary's
    } else if (lag->caughtUp)
        setText(tr("Replica: current"));
    else if (!lag->seconds) {
        setText(tr("Replica: behind, nothing replayed yet"));
        noticeable = true;
    } else {
        setText(tr("Replica: %n s behind", nullptr, int(std::min<qint64>(*lag->seconds, 1 << 30))));
        noticeable = *lag->seconds > NoticeableSeconds;
    }
    setBold(noticeable);
    Q_EMIT lagChanged();
}

void ReplicaLagLabel::setBold(bool bold)
{
    QFont font = this->font();
    font.setBold(bold);
    setFont(font);
}

} // namespace keel
