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
#include <chrono>
#include <csignal>

namespace keel::chaos {
namespace {

constexpr int TickMs = 500;
constexpr qint64 StallMs = 6000;
// What the status bar rounds away: it says whole seconds, and "current"
// for a replica a second behind.
constexpr qint64 GraceMs = 1000;

qint64 wallMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

qint64 steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

ReplicaWatch::ReplicaWatch(ConnectionSettings primary, ConnectionSettings replica,
                           QString replicaName)
    : m_primary(std::move(primary)), m_replica(std::move(replica)),
      m_replicaName(std::move(replicaName))
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
    m_resumer = std::thread([this] { resumeWhenDue(); });
}

void ReplicaWatch::stop()
{
    m_stopping = true;
    resumeReplay(); // first: a read may be waiting on what the stopped replay holds
    if (m_thread.joinable())
        m_thread.join();
    if (m_resumer.joinable())
        m_resumer.join();
    resumeReplay();
}

void ReplicaWatch::run()
{
    // The replica lags on purpose too: its replay stalled for six seconds,
    // then left alone for at least fourteen, each stall begun while the
    // primary takes marks, so that it goes on writing past the replica.
    qint64 calmUntilMs = steadyMs() + 10000;
    while (!m_stopping) {
        const bool marked = markPrimary();
        if (marked && m_stoppedStartup == 0 && steadyMs() >= calmUntilMs && stallReplay())
            calmUntilMs = steadyMs() + StallMs + 14000;
        m_paused = m_stoppedStartup != 0;
        if (!readReplica()) {
            // Opened again next time: a server away, or the primary moved.
            QtSqlConnections::closeThreadConnections();
            QMutexLocker locker(&m_lock);
            ++m_failedReads;
        }
        QThread::msleep(TickMs);
    }
    QtSqlConnections::closeThreadConnections();
}

// Replay stalls as it would behind a long query or a slow disk: the
// replica's startup process stopped, its WAL still received. (Patroni
// resumes a replay paused with pg_wal_replay_pause() within a second.) It
// is resumed by its own thread on a deadline: a read on the replica may wait
// on a lock or buffer the stopped process holds, and must not keep it stopped.
bool ReplicaWatch::stallReplay()
{
    Result<LibpqConnection> replica = LibpqConnection::open(m_replica);
    if (!replica)
        return false;
    Result<QString> startup =
        replica->scalar("SELECT pid FROM pg_stat_activity WHERE backend_type = 'startup'");
    if (!startup || startup->toLongLong() <= 0)
        return false;
    m_resumeAtMs = steadyMs() + StallMs;
    m_stoppedStartup = startup->toLongLong();
    if (::kill(pid_t(m_stoppedStartup.load()), SIGSTOP) != 0) {
        m_stoppedStartup = 0;
        return false;
    }
    QMutexLocker locker(&m_lock);
    ++m_pauses;
    return true;
}

void ReplicaWatch::resumeWhenDue()
{
    while (!m_stopping) {
        if (m_stoppedStartup != 0 && steadyMs() >= m_resumeAtMs)
            resumeReplay();
        QThread::msleep(100);
    }
}

void ReplicaWatch::resumeReplay()
{
    if (const qint64 pid = m_stoppedStartup.exchange(0); pid > 0)
        ::kill(pid_t(pid), SIGCONT);
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
    // Patroni 3.0 in strict synchronous mode names '*' while no candidate
    // standby runs, and '*' takes this replica too (docs/findings.md).
    Result<PgRows> synchronous =
        primary->query("SELECT 1 FROM pg_stat_replication WHERE application_name = $1 "
                       "AND sync_state <> 'async'",
                       {m_replicaName.toUtf8()});
    QMutexLocker locker(&m_lock);
    m_marks.push_back(mark);
    m_marksAckedByReplica += synchronous && synchronous->size() > 0 ? 1 : 0;
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
    // What the console claims is as of the primary's clock then.
    reading.atMs = qint64(position->epoch.toDouble() * 1000);
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
    m_readsWhilePaused += m_paused ? 1 : 0;
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
    judgeWhatItSaid(verdict);
    const qint64 withdrawn = judgeWhatItShowed(primary, verdict);
    count(verdict, withdrawn);
}

// Each reading against the marks the primary had committed before what the
// console would have said.
void ReplicaWatch::judgeWhatItSaid(Verdict &verdict) const
{
    qint64 told = 0;
    for (const Reading &reading : m_readings) {
        if (reading.behindMs == -2) {
            verdict.violation(QStringLiteral("replica: it was not in recovery when read"));
            continue;
        }
        if (reading.behindMs < 0)
            continue;
        ++told;
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
    // Six readings into stalls of six seconds, one at least said so; with
    // fewer (every stall met a failover), the run could not tell.
    if (m_readsWhilePaused >= 6 && m_readsBehindWhilePaused == 0)
        verdict.violation(QStringLiteral("replica: never read as behind while its replay was "
                                         "stalled, which proves nothing about how it says so"));
}

// A payment it showed that the primary does not have: gone with a failover,
// and it must be gone from the replica too once caught up. Returns how many.
qint64 ReplicaWatch::judgeWhatItShowed(LibpqConnection &primary, Verdict &verdict) const
{
    const QStringList seen(m_chargesSeen.cbegin(), m_chargesSeen.cend());
    Result<PgRows> kept =
        primary.query("SELECT public_id FROM keel.charges WHERE public_id = ANY($1::text[])",
                      {LibpqConnection::arrayParam(seen)});
    if (!kept) {
        verdict.violation(QStringLiteral("replica: cannot read the primary's charges: ") +
                          kept.error().message);
        return 0;
    }
    if (kept->size() == seen.size())
        return 0;
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
    if (!still) {
        verdict.violation(QStringLiteral("replica: cannot read it at the end: ") +
                          still.error().message);
        return gone.size();
    }
    for (int i = 0; i < still->size(); ++i)
        verdict.violation(QStringLiteral("replica: it still shows payment %1, which the "
                                         "primary does not have")
                              .arg(still->text(i, 0)));
    return gone.size() - still->size();
}

void ReplicaWatch::count(Verdict &verdict, qint64 withdrawn) const
{
    verdict.counts[QStringLiteral("replica: readings")] = qint64(m_readings.size());
    verdict.counts[QStringLiteral("replica: marks committed while it stood as a synchronous "
                                  "standby")] = m_marksAckedByReplica;
    verdict.counts[QStringLiteral("replica: replay stalled on purpose")] = m_pauses;
    verdict.counts[QStringLiteral("replica: readings that said it was behind")] = m_readsBehind;
    verdict.counts[QStringLiteral("replica: of them, while its replay was stalled")] =
        m_readsBehindWhilePaused;
    verdict.counts[QStringLiteral("replica: readings while its replay was stalled")] =
        m_readsWhilePaused;
    verdict.counts[QStringLiteral("replica: most it said it was behind (ms)")] = m_maxBehindMs;
    verdict.counts[QStringLiteral("replica: reads that failed (a server away)")] = m_failedReads;
    verdict.counts[QStringLiteral("replica: payments shown")] = qint64(m_chargesSeen.size());
    verdict.counts[QStringLiteral("replica: payments shown, then withdrawn by a failover")] =
        withdrawn;
}

} // namespace keel::chaos
