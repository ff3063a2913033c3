#include "core/metrics/RollupBuffer.h"

#include "core/db/LibpqConnection.h"

#include <QDateTime>

namespace keel {

RollupBuffer &RollupBuffer::instance()
{
    static RollupBuffer buffer;
    return buffer;
}

void RollupBuffer::add(const QString &metric, qint64 count, qint64 total, qint64 leMicros)
{
    const qint64 minute = QDateTime::currentSecsSinceEpoch() / 60 * 60;
    QMutexLocker locker(&m_lock);
    Sums &sums = m_pending[Key{minute, metric, leMicros}];
    sums.count += count;
    sums.total += total;
}

Status RollupBuffer::flush(LibpqConnection &session, const QString &source)
{
    QHash<Key, Sums> taken;
    {
        QMutexLocker locker(&m_lock);
        taken.swap(m_pending);
    }
    if (taken.isEmpty())
        return {};
    QStringList minutes, metrics, bounds, counts, totals;
    for (auto it = taken.cbegin(); it != taken.cend(); ++it) {
        minutes << QString::number(it.key().minute);
        metrics << it.key().metric;
        bounds << QString::number(it.key().le);
        counts << QString::number(it->count);
        totals << QString::number(it->total);
    }
    Result<PgRows> written = session.query(
        "INSERT INTO keel.metrics_minute AS m (minute, source, metric, le_micros, count, total) "
        "SELECT to_timestamp(u.minute), $1, u.metric, u.le, u.count, u.total "
        "FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[]) "
        "  AS u(minute, metric, le, count, total) "
        "ON CONFLICT (metric, le_micros, minute, source) DO UPDATE "
        "SET count = m.count + EXCLUDED.count, total = m.total + EXCLUDED.total",
        {source.toUtf8(), LibpqConnection::arrayParam(minutes),
         LibpqConnection::arrayParam(metrics), LibpqConnection::arrayParam(bounds),
         LibpqConnection::arrayParam(counts), LibpqConnection::arrayParam(totals)});
    if (!written) {
        // Kept for the next flush rather than lost.
        QMutexLocker locker(&m_lock);
        for (auto it = taken.cbegin(); it != taken.cend(); ++it) {
            Sums &sums = m_pending[it.key()];
            sums.count += it->count;
            sums.total += it->total;
        }
        return written.error();
    }
    // Consoles listening on this channel refresh now rather than at their next poll.
    Result<PgRows> notified =
        session.query("SELECT pg_notify('keel_metrics', $1)", {source.toUtf8()});
    if (!notified)
        return notified.error();
    return {};
}

Result<int> RollupBuffer::sweep(LibpqConnection &session, int days, int batch)
{
    Result<PgRows> rows = session.query(
        "DELETE FROM keel.metrics_minute WHERE ctid IN (SELECT ctid FROM keel.metrics_minute "
        "WHERE minute < now() - make_interval(days => $1) LIMIT $2)",
        {QByteArray::number(days), QByteArray::number(batch)});
    if (!rows)
        return rows.error();
    return rows->affected();
}

Status RollupBuffer::foldSlots(LibpqConnection &session)
{
    return statusOf(session.query("SELECT keel.fold_metric_slots()"));
}

} // namespace keel
