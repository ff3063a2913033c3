#include "ReplicaWatch.h"

#include "ChaosChecks.h"
#include "core/db/LibpqConnection.h"
#include "core/db/QtSqlConnections.h"
#include "core/read/HistoryQuery.h"
#include "core/read/ReplicaLag.h"

#include <QDateTime>
#include <QSqlQuery>
#include <QThread>
#include <QVariant>

#include <algorithm>
#include <csignal>

namespace keel::chaos {
namespace {

constexpr int TickMs = 500;
// What the status bar rounds away: it says whole seconds, and "current"
// for a replica a second behind.
constexpr qint64 GraceMs = 1000;

qint64 wallMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

} // namespace

ReplicaWatch::ReplicaWatch(ConnectionSettings primary, ConnectionSettings replica)
    : m_primary(std::move(primary)), m_replica(std::move(replica))
{}

ReplicaWatch::~ReplicaWatch()
{
    stop();
}

bool ReplicaWatch::prepare(QString *error)
{
    Result<LibpqConnection> admin = LibpqConnection::open(m_primary);
    if (!admin) {
        *error = admin.error().message;
        return false;
    }
    const Status made = admin->exec(
        "CREATE SCHEMA chaos_watch; "
        "CREATE TABLE chaos_watch.marks (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
        "  at timestamptz NOT NULL DEFAULT clock_timestamp()); "
        "CREATE ROLE chaos_auditor LOGIN IN ROLE keel_auditor; "
        "GRANT USAGE ON SCHEMA chaos_watch TO chaos_auditor; "
        "GRANT SELECT ON chaos_watch.marks TO chaos_auditor");
    if (!made) {
        *error = made.error().message;
        return false;
    }
    m_auditorOnPrimary = m_primary;
    m_auditorOnPrimary.set(QStringLiteral("user"), QStringLiteral("chaos_auditor"));
    m_auditorOnReplica = m_replica;
    m_auditorOnReplica.set(QStringLiteral("user"), QStringLiteral("chaos_auditor"));
    return true;
}

void ReplicaWatch::start()
{
    m_stopping = false;
    m_thread = std::thread([this] { run(); });
}

void ReplicaWatch::stop()
{
    m_stopping = true;
    if (m_thread.joinable())
        m_thread.join();
}

void ReplicaWatch::run()
{
    // The replica lags on purpose too: its replay stalled for six seconds in
    // every twenty, begun while the primary takes marks, so that it goes on
    // writing past the replica.
    constexpr int Cycle = 40, PauseAt = 10, PauseTicks = 12;
    int pausedAt = -1;
    for (int tick = 0; !m_stopping; ++tick) {
        const bool marked = markPrimary();
        if (pausedAt < 0 && tick % Cycle >= PauseAt && tick % Cycle < PauseAt + 4 && marked &&
            setReplayPaused(true))
            pausedAt = tick;
        else if (pausedAt >= 0 && tick - pausedAt >= PauseTicks && setReplayPaused(false))
            pausedAt = -1;
        m_paused = pausedAt >= 0;
        if (!readReplica()) {
            // Opened again next time: a server away, or the primary moved.
            QtSqlConnections::closeThreadConnections();
            QMutexLocker locker(&m_lock);
            ++m_failedReads;
        }
        QThread::msleep(TickMs);
    }
    setReplayPaused(false);
    QtSqlConnections::closeThreadConnections();
}

// Replay stalls as it would behind a long query or a slow disk: the
// replica's startup process stopped, its WAL still received. (Patroni
// resumes a replay paused with pg_wal_replay_pause() within a second.)
bool ReplicaWatch::setReplayPaused(bool paused)
{
    if (!paused) {
        if (m_stoppedStartup > 0)
            ::kill(pid_t(m_stoppedStartup), SIGCONT);
        m_stoppedStartup = 0;
        return true;
    }
    Result<LibpqConnection> replica = LibpqConnection::open(m_replica);
    if (!replica)
        return false;
    Result<QString> startup =
        replica->scalar("SELECT pid FROM pg_stat_activity WHERE backend_type = 'startup'");
    if (!startup || startup->toLongLong() <= 0 || ::kill(pid_t(startup->toLongLong()), SIGSTOP))
        return false;
    m_stoppedStartup = startup->toLongLong();
    QMutexLocker locker(&m_lock);
    ++m_pauses;
    return true;
}

bool ReplicaWatch::markPrimary()
{
    Result<LibpqConnection> primary = LibpqConnection::open(m_primary);
    if (!primary)
        return false; // failing over: the next tick marks the new primary
    Result<QString> id =
        primary->scalar("INSERT INTO chaos_watch.marks DEFAULT VALUES RETURNING id");
    if (!id)
        return false;
    const Mark mark{id->toLongLong(), wallMs()};
    QMutexLocker locker(&m_lock);
    m_marks.push_back(mark);
    return true;
}

// As the console reads: the primary's position, then the replica against it,
// then what its views show.
bool ReplicaWatch::readReplica()
{
    Reading reading;
    reading.atMs = wallMs();
    Result<QSqlDatabase> primary = QtSqlConnections::connect(m_auditorOnPrimary);
    Result<QSqlDatabase> replica = QtSqlConnections::connect(m_auditorOnReplica);
    if (!primary || !replica)
        return false;
    Result<PrimaryPosition> position = primaryWalPosition(*primary);
    if (!position)
        return false;
    Result<ReplicaLag> lag = replicaLag(*replica, *position);
    if (!lag)
        return false;
    QSqlQuery newest(*replica);
    if (!newest.exec(QStringLiteral("SELECT coalesce(max(id), 0) FROM chaos_watch.marks")) ||
        !newest.next())
        return false;
    reading.newestMark = newest.value(0).toLongLong();
    Result<HistoryPage> page = HistoryQuery::page(*replica, {}, std::nullopt, 20);
    if (!page)
        return false;
    // Not yet said: a replica that replayed nothing since it started.
    reading.behindMs = !lag->standby   ? -2
                       : lag->caughtUp ? GraceMs
                       : lag->seconds  ? (*lag->seconds + 1) * 1000
                                       : -1;
    QMutexLocker locker(&m_lock);
    for (const HistoryRow &row : std::as_const(page->rows))
        m_chargesSeen.insert(row.publicId);
    if (lag->standby && !lag->caughtUp && lag->seconds) {
        ++m_readsBehind;
        m_readsBehindWhilePaused += m_paused ? 1 : 0;
        m_maxBehindMs = std::max(m_maxBehindMs, *lag->seconds * 1000);
    }
    m_readings.push_back(reading);
    return true;
}

bool ReplicaWatch::caughtUpWithLastMark(int timeoutMs)
{
    markPrimary();
    QMutexLocker locker(&m_lock);
    if (m_marks.empty())
        return false;
    const qint64 last = m_marks.back().id;
    locker.unlock();
    const qint64 deadline = wallMs() + timeoutMs;
    while (wallMs() < deadline) {
        if (Result<LibpqConnection> replica = LibpqConnection::open(m_replica))
            if (Result<QString> newest =
                    replica->scalar("SELECT coalesce(max(id), 0) FROM chaos_watch.marks");
                newest && newest->toLongLong() >= last)
                return true;
        QThread::msleep(500);
    }
    return false;
}

void ReplicaWatch::judge(LibpqConnection &primary, Verdict &verdict)
{
    stop();
    if (!caughtUpWithLastMark(60000))
        verdict.violation(QStringLiteral("replica: it did not catch up with the primary's last "
                                         "mark within 60 s of the end"));
    QMutexLocker locker(&m_lock);
    qint64 told = 0;
    for (const Reading &reading : std::as_const(m_readings)) {
        if (reading.behindMs == -2) {
            verdict.violation(QStringLiteral("replica: it was not in recovery when read"));
            continue;
        }
        if (reading.behindMs < 0)
            continue;
        ++told;
        // Every mark committed before what the console would have said.
        const qint64 before = reading.atMs - reading.behindMs - GraceMs;
        const auto owed =
            std::partition_point(m_marks.cbegin(), m_marks.cend(),
                                 [before](const Mark &m) { return m.committedMs < before; });
        if (owed != m_marks.cbegin() && std::prev(owed)->id > reading.newestMark)
            verdict.violation(
                QStringLiteral("replica: at %1 it said it was at most %2 ms behind, but lacked "
                               "mark %3 the primary committed at %4")
                    .arg(reading.atMs)
                    .arg(reading.behindMs)
                    .arg(std::prev(owed)->id)
                    .arg(std::prev(owed)->committedMs));
    }
    if (told == 0)
        verdict.violation(QStringLiteral("replica: never read while the faults ran, which "
                                         "proves nothing about it"));
    if (m_readsBehindWhilePaused == 0)
        verdict.violation(QStringLiteral("replica: never read as behind while its replay was "
                                         "paused, which proves nothing about how it says so"));
    // A payment it showed that the primary does not have: gone with a
    // failover, and it must be gone from the replica too once caught up.
    const QStringList seen(m_chargesSeen.cbegin(), m_chargesSeen.cend());
    Result<PgRows> kept =
        primary.query("SELECT public_id FROM keel.charges WHERE public_id = ANY($1::text[])",
                      {LibpqConnection::arrayParam(seen)});
    qint64 withdrawn = 0;
    if (!kept) {
        verdict.violation(QStringLiteral("replica: cannot read the primary's charges: ") +
                          kept.error().message);
    } else if (kept->size() < seen.size()) {
        QSet<QString> lost = m_chargesSeen;
        for (int i = 0; i < kept->size(); ++i)
            lost.remove(kept->text(i, 0));
        const QStringList gone(lost.cbegin(), lost.cend());
        Result<LibpqConnection> replica = LibpqConnection::open(m_replica);
        Result<PgRows> still =
            replica ? replica->query("SELECT public_id FROM keel.charges WHERE public_id = "
                                     "ANY($1::text[])",
                                     {LibpqConnection::arrayParam(gone)})
                    : Result<PgRows>(replica.error());
        if (!still)
            verdict.violation(QStringLiteral("replica: cannot read it at the end: ") +
                              still.error().message);
        for (int i = 0; still && i < still->size(); ++i)
            verdict.violation(QStringLiteral("replica: it still shows payment %1, which the "
                                             "primary does not have")
                                  .arg(still->text(i, 0)));
        withdrawn = gone.size() - (still ? still->size() : 0);
    }
    verdict.counts[QStringLiteral("replica: readings")] = qint64(m_readings.size());
    verdict.counts[QStringLiteral("replica: replay paused on purpose")] = m_pauses;
    verdict.counts[QStringLiteral("replica: readings that said it was behind")] = m_readsBehind;
    verdict.counts[QStringLiteral("replica: of them, while its replay was paused")] =
        m_readsBehindWhilePaused;
    verdict.counts[QStringLiteral("replica: most it said it was behind (ms)")] = m_maxBehindMs;
    verdict.counts[QStringLiteral("replica: reads that failed (a server away)")] = m_failedReads;
    verdict.counts[QStringLiteral("replica: payments shown")] = qint64(m_chargesSeen.size());
    verdict.counts[QStringLiteral("replica: payments shown, then withdrawn by a failover")] =
        withdrawn;
}

} // namespace keel::chaos
