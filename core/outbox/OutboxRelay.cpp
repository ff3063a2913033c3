#include "core/outbox/OutboxRelay.h"

#include "core/db/PgConnection.h"
#include "core/metrics/Metrics.h"
#include "core/outbox/AmqpPublisher.h"

#include <QSet>
#include <QStringList>

#include <future>
#include <utility>

namespace keel {
namespace {

constexpr int Buckets = 64;
// The advisory lock space keel's relays use: (this, bucket).
constexpr int RelayLockClass = 7301;
// Windows per pass before the buckets are let go for other relays.
constexpr int MaxWindowsPerPass = 50;

QByteArray idList(const QList<qint64> &ids)
{
    QStringList items;
    for (const qint64 id : ids)
        items << QString::number(id);
    return PgConnection::arrayParam(items);
}

QString refusal(PublishVerdict verdict, const QString &routingKey)
{
    return verdict == PublishVerdict::Returned
               ? QStringLiteral("returned: no queue is bound for routing key %1").arg(routingKey)
               : QStringLiteral("the broker refused the message (nack)");
}

} // namespace

OutboxRelay::OutboxRelay(PgConnection &connection, AmqpPublisher &publisher, RelayOptions options)
    : m_connection(connection), m_publisher(publisher), m_options(std::move(options))
{}

Result<RelayPass> OutboxRelay::runOnce()
{
    RelayPass pass;
    // Every bucket no other relay holds, in one round trip.
    Result<PgRows> locked = m_connection.query(
        "SELECT coalesce(array_agg(b), '{}')::text FROM generate_series(0, $2::int - 1) b "
        "WHERE pg_try_advisory_lock($1::int, b)",
        {QByteArray::number(RelayLockClass), QByteArray::number(Buckets)});
    if (!locked)
        return locked.error();
    const QByteArray buckets = locked->value(0, 0);
    if (buckets == "{}")
        return pass;
    // A pass is bounded, so other relays get their turn at the buckets.
    Status drained = publishWindows(buckets, pass);
    // The last window's rows are marked before their buckets are let go, so
    // no other relay publishes them again.
    Result<PgRows> unlocked = m_connection.query(
        "WITH marked AS (UPDATE keel.outbox SET published_at = now() "
        "  WHERE id = ANY($3::bigint[])) "
        "SELECT pg_advisory_unlock($1::int, b) FROM unnest($2::int[]) b",
        {QByteArray::number(RelayLockClass), buckets, idList(std::exchange(m_unmarked, {}))});
    if (!drained)
        return drained.error();
    if (!unlocked)
        return unlocked.error();
    return pass;
}

Status OutboxRelay::publishWindows(const QByteArray &buckets, RelayPass &pass)
{
    Result<QList<DueRow>> next = dueRows(buckets, {}, {});
    bool progressed = false; // rows of the last window were confirmed or refused
    for (int window = 0; window < MaxWindowsPerPass; ++window) {
        if (next && next->isEmpty() && progressed) {
            // The read ahead came back empty before this window's verdicts
            // were in; read again.
            const QList<qint64> marked = m_unmarked;
            next = dueRows(buckets, std::exchange(m_unmarked, {}), marked);
        }
        if (!next)
            return next.error();
        if (next->isEmpty())
            return {};
        const QList<DueRow> current = std::move(*next);
        // The database works on the next window while the broker confirms
        // this one: it marks the previous window published and reads the
        // rows after this one.
        QList<qint64> exclude = m_unmarked;
        for (const DueRow &row : current)
            exclude << row.id;
        std::future<Result<QList<DueRow>>> reading =
            std::async(std::launch::async, [&, marked = std::exchange(m_unmarked, {})] {
                return dueRows(buckets, marked, exclude);
            });
        QList<OutgoingMessage> messages;
        messages.reserve(current.size());
        for (const DueRow &row : current)
            messages.append(row.message);
        Error brokerError;
        const QList<PublishVerdict> verdicts =
            m_publisher.publish(messages, m_options.confirmTimeoutMs, &brokerError);
        next = reading.get();
        const int before = pass.published + pass.failed + pass.parked;
        if (Status judged = applyVerdicts(current, verdicts, pass); !judged)
            return judged;
        progressed = pass.published + pass.failed + pass.parked > before;
        if (next) {
            // A row read ahead goes out only after its aggregate's row in
            // this window was confirmed; otherwise it waits for that row.
            QSet<QString> held;
            for (qsizetype i = 0; i < current.size(); ++i)
                if (verdicts[i] != PublishVerdict::Confirmed)
                    held.insert(current[i].aggregate);
            next->removeIf([&held](const DueRow &row) { return held.contains(row.aggregate); });
        }
        if (!brokerError.message.isEmpty()) {
            pass.brokerDown = true;
            pass.brokerError = brokerError.message;
            return {};
        }
    }
    return {};
}

Status OutboxRelay::applyVerdicts(const QList<DueRow> &rows, const QList<PublishVerdict> &verdicts,
                                  RelayPass &pass)
{
    int confirmed = 0;
    for (qsizetype i = 0; i < rows.size(); ++i) {
        const DueRow &row = rows[i];
        if (verdicts[i] == PublishVerdict::Confirmed) {
            // Marked published by the next window's query, or as the pass ends.
            m_unmarked << row.id;
            ++confirmed;
            continue;
        }
        if (verdicts[i] == PublishVerdict::Unknown)
            continue; // the broker went away: not the message's fault
        const bool park = row.attempts + 1 >= m_options.maxAttempts;
        if (Status refused = recordRefusal(row, verdicts[i], park); !refused)
            return refused;
        ++(park ? pass.parked : pass.failed);
        Metrics::instance().countOutbox(park ? QStringLiteral("parked") : QStringLiteral("failed"),
                                        1);
    }
    pass.published += confirmed;
    Metrics::instance().countOutbox(QStringLiteral("published"), confirmed);
    return {};
}

Result<QList<OutboxRelay::DueRow>> OutboxRelay::dueRows(const QByteArray &buckets,
                                                        const QList<qint64> &markPublished,
                                                        const QList<qint64> &exclude)
{
    // Marks the previous window's confirmed rows published, in the same
    // round trip and commit, and reads the next: the oldest pending rows of
    // these buckets in id order (the pending index gives them cheaply
    // whatever the planner knows of the table), leaving out the rows in
    // flight or just marked (still pending in this statement's snapshot) and
    // the aggregates whose earlier row waits for a retry. Every other earlier
    // pending row of an aggregate is in this prefix, so keeping the first row
    // of each aggregate keeps each aggregate's order (a row in flight is
    // dealt with by the caller). The server renders the message body.
    Result<PgRows> rows = m_connection.query(
        "WITH marked AS (UPDATE keel.outbox SET published_at = now() "
        "    WHERE id = ANY($3::bigint[])), "
        "  candidates AS MATERIALIZED (SELECT * FROM keel.outbox "
        "    WHERE published_at IS NULL AND parked_at IS NULL AND bucket = ANY($1::smallint[]) "
        "      AND id <> ALL($4::bigint[]) ORDER BY id LIMIT $2 * 2), "
        "  retrying AS MATERIALIZED (SELECT aggregate_type, aggregate_id, min(id) AS first_id "
        "    FROM keel.outbox WHERE published_at IS NULL AND parked_at IS NULL AND attempts > 0 "
        "      AND bucket = ANY($1::smallint[]) GROUP BY aggregate_type, aggregate_id) "
        "SELECT c.id, c.aggregate_type || ':' || c.aggregate_id, "
        "  c.aggregate_type || '.' || c.event_type, c.attempts, c.next_attempt_at <= now(), "
        "  json_build_object('id', 'keel-outbox-' || c.id, 'type', c.event_type, "
        "    'aggregate', json_build_object('type', c.aggregate_type, 'id', c.aggregate_id), "
        "    'created_ms', (extract(epoch FROM c.created_at) * 1000)::bigint, "
        "    'payload', c.payload)::text "
        "FROM candidates c LEFT JOIN retrying r ON r.aggregate_type = c.aggregate_type "
        "  AND r.aggregate_id = c.aggregate_id AND r.first_id < c.id "
        "WHERE r.first_id IS NULL ORDER BY c.id",
        {buckets, QByteArray::number(m_options.batch), idList(markPublished), idList(exclude)});
    if (!rows)
        return rows.error();
    QList<DueRow> due;
    QSet<QString> seen;
    for (int row = 0; row < rows->size() && due.size() < m_options.batch; ++row) {
        const QString aggregate = rows->text(row, 1);
        if (seen.contains(aggregate))
            continue; // its earlier row goes out first
        seen.insert(aggregate);
        if (rows->value(row, 4) != "t")
            continue; // backing off; later rows of its aggregate wait too
        const qint64 id = rows->toInt64(row, 0);
        due.append(
            {id,
             rows->toInt64(row, 3),
             aggregate,
             {QStringLiteral("keel-outbox-%1").arg(id), rows->text(row, 2), rows->value(row, 5)}});
    }
    return due;
}

Status OutboxRelay::recordRefusal(const DueRow &row, PublishVerdict verdict, bool park)
{
    Result<PgRows> failed = m_connection.query(
        "UPDATE keel.outbox SET attempts = attempts + 1, last_error = $2, "
        "  next_attempt_at = now() + least(power(2, attempts), 300) * interval '1 second', "
        "  parked_at = CASE WHEN $3 THEN now() END WHERE id = $1",
        {QByteArray::number(row.id), refusal(verdict, row.message.routingKey).toUtf8(),
         park ? "true" : "false"});
    if (!failed)
        return failed.error();
    return {};
}

Result<int> OutboxRelay::sweepPublished(int keepSeconds, int batch)
{
    Result<PgRows> rows = m_connection.query(
        "DELETE FROM keel.outbox WHERE id IN (SELECT id FROM keel.outbox "
        "  WHERE published_at < now() - $1 * interval '1 second' ORDER BY published_at LIMIT $2)",
        {QByteArray::number(keepSeconds), QByteArray::number(batch)});
    if (!rows)
        return rows.error();
    return rows->affected();
}

Status OutboxRelay::measure()
{
    Result<PgRows> rows = m_connection.query(
        "SELECT coalesce((SELECT (extract(epoch FROM now() - created_at) * 1000)::bigint "
        "    FROM keel.outbox WHERE published_at IS NULL AND parked_at IS NULL "
        "    ORDER BY id LIMIT 1), 0), "
        "  (SELECT count(*) FROM keel.outbox WHERE published_at IS NULL AND parked_at IS NULL), "
        "  (SELECT count(*) FROM keel.outbox WHERE parked_at IS NOT NULL)");
    if (!rows)
        return rows.error();
    Metrics::instance().setOutboxState(rows->toInt64(0, 0), rows->toInt64(0, 1),
                                       rows->toInt64(0, 2));
    return {};
}

} // namespace keel
