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

void ReplicaLagLabel::refresh()
{
    if (m_asking)
        return;
    m_asking = true;
    m_primary->submit<QString>(
        this, [](QSqlDatabase db) { return primaryWalPosition(db); },
        [this](const Result<QString> &position) {
            if (!position) {
                m_asking = false;
                return display(std::nullopt);
            }
            m_replica->submit<ReplicaLag>(
                this, [at = *position](QSqlDatabase db) { return replicaLag(db, at); },
                [this](const Result<ReplicaLag> &lag) {
                    m_asking = false;
                    display(lag ? std::optional<ReplicaLag>(*lag) : std::nullopt);
                });
        });
}

void ReplicaLagLabel::display(const std::optional<ReplicaLag> &lag)
{
    m_lag = lag;
    QFont font = this->font();
    font.setBold(false);
    if (!lag)
        setText(tr("Replica: lag unknown"));
    else if (!lag->standby)
        setText(tr("Replica: not a standby"));
    else if (lag->caughtUp)
        setText(tr("Replica: current"));
    else if (!lag->seconds)
        setText(tr("Replica: behind, nothing replayed yet"));
    else {
        setText(tr("Replica: %n s behind", nullptr, int(std::min<qint64>(*lag->seconds, 1 << 30))));
        font.setBold(*lag->seconds > NoticeableSeconds);
    }
    setFont(font);
    Q_EMIT lagChanged();
}

} // namespace keel
