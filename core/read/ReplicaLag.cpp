#include "core/read/ReplicaLag.h"

#include "core/db/BoundQuery.h"

#include <QSqlQuery>
#include <QVariant>

namespace keel {
namespace {

// Where the last record was inserted, not only written: a commit made
// without waiting for its flush is visible on the primary before it is
// written. The clock beside it stamps the commits the replica replays.
constexpr char PrimaryState[] =
    "SELECT pg_current_wal_insert_lsn()::text, extract(epoch FROM clock_timestamp())::text";

// Ages by the primary's clock, so that the servers' clocks need not agree:
// whole seconds, never below zero, none when nothing was replayed since the
// replica started. A replica whose last replayed commit is under a second
// old misses at most that second, however busy the primary: on one that
// never stops writing it would otherwise never read as caught up.
constexpr char ReplayState[] =
    "WITH asked AS (SELECT to_timestamp(?::float8) AS primary_now, ?::pg_lsn AS position) "
    "SELECT pg_is_in_recovery(), "
    "       coalesce(pg_last_wal_replay_lsn() >= position, false) "
    "         OR coalesce(primary_now - pg_last_xact_replay_timestamp() < interval '1 second', "
    "                     false), "
    "       CASE WHEN pg_last_xact_replay_timestamp() IS NOT NULL THEN "
    "         greatest(floor(extract(epoch FROM primary_now - pg_last_xact_replay_timestamp())), 0)"
    "           ::bigint END "
    "FROM asked";

} // namespace

Result<PrimaryPosition> primaryWalPosition(QSqlDatabase primary)
{
    QSqlQuery query(primary);
    if (Status done = runBound(query, QLatin1String(PrimaryState)); !done)
        return done.error();
    if (!query.next())
        return makeError(ErrorKind::Failed, QStringLiteral("the primary gave no WAL position"));
    return PrimaryPosition{query.value(0).toString(), query.value(1).toString()};
}

Result<ReplicaLag> replicaLag(QSqlDatabase replica, const PrimaryPosition &primary)
{
    QSqlQuery query(replica);
    if (Status done =
            runBound(query, QLatin1String(ReplayState), {primary.epoch, primary.walInsert});
        !done)
        return done.error();
    if (!query.next())
        return makeError(ErrorKind::Failed, QStringLiteral("the replica gave no replay state"));
    ReplicaLag lag;
    lag.standby = query.value(0).toBool();
    // A server out of recovery is no replica: it may have been promoted and
    // no longer follow the primary at all.
    lag.caughtUp = lag.standby && query.value(1).toBool();
    if (!query.value(2).isNull())
        lag.seconds = query.value(2).toLongLong();
    return lag;
}

} // namespace keel
