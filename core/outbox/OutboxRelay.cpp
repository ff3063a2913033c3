#include "core/outbox/OutboxRelay.h"

#include "core/db/PgConnection.h"
#include "core/metrics/Metrics.h"
#include "core/outbox/AmqpPublisher.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

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
    Status drained;
    for (int window = 0; window < MaxWindowsPerPass && !pass.brokerDown; ++window) {
        const int before = pass.published + pass.failed + pass.parked;
        drained = publishWindow(buckets, pass);
        if (!drained || pass.published + pass.failed + pass.parked == before)
            break;
    }
    Result<PgRows> unlocked =
        m_connection.query("SELECT pg_advisory_unlock($1::int, b) FROM unnest($2::int[]) b",
                           {QByteArray::number(RelayLockClass), buckets});
    if (!drained)
        return drained.error();
    if (!unlocked)
        return unlocked.error();
    return pass;
}

Status OutboxRelay::publishWindow(const QByteArray &buckets, RelayPass &pass)
{
    {
        // Due rows whose aggregate has nothing earlier still to publish.
        Result<PgRows> rows = m_connection.query(
            // The oldest due rows first, by the pending index in id order
            // (cheap whatever the planner knows of the table), then only
            // those that are their aggregate's earliest pending row.
            "WITH candidates AS MATERIALIZED (SELECT id, aggregate_type, aggregate_id, "
            "    event_type, payload, created_at, attempts FROM keel.outbox "
            "  WHERE published_at IS NULL AND parked_at IS NULL AND bucket = ANY($1::smallint[]) "
            "    AND next_attempt_at <= now() ORDER BY id LIMIT $2 * 4) "
            "SELECT o.id, o.aggregate_type, o.aggregate_id, o.event_type, o.payload::text, "
            "  (extract(epoch FROM o.created_at) * 1000)::bigint, o.attempts FROM candidates o "
            "WHERE (SELECT min(p.id) FROM keel.outbox p WHERE p.aggregate_type = o.aggregate_type "
            "       AND p.aggregate_id = o.aggregate_id AND p.published_at IS NULL "
            "       AND p.parked_at IS NULL) = o.id "
            "ORDER BY o.id LIMIT $2",
            {buckets, QByteArray::number(m_options.batch)});
        if (!rows)
            return rows.error();
        if (rows->size() == 0)
            return {};
        QList<OutgoingMessage> messages;
        for (int row = 0; row < rows->size(); ++row) {
            const QString id = QStringLiteral("keel-outbox-%1").arg(rows->text(row, 0));
            const QJsonObject body{
                {QStringLiteral("id"), id},
                {QStringLiteral("type"), rows->text(row, 3)},
                {QStringLiteral("aggregate"),
                 QJsonObject{{QStringLiteral("type"), rows->text(row, 1)},
                             {QStringLiteral("id"), rows->text(row, 2)}}},
                {QStringLiteral("created_ms"), rows->toInt64(row, 5)},
                {QStringLiteral("payload"), QJsonDocument::fromJson(rows->value(row, 4)).object()}};
            messages.append({id, rows->text(row, 1) + u'.' + rows->text(row, 3),
                             QJsonDocument(body).toJson(QJsonDocument::Compact)});
        }
        Error brokerError;
        const QList<PublishVerdict> verdicts =
            m_publisher.publish(messages, m_options.confirmTimeoutMs, &brokerError);
        QList<qint64> published;
        for (int row = 0; row < rows->size(); ++row) {
            const qint64 id = rows->toInt64(row, 0);
            if (verdicts[row] == PublishVerdict::Confirmed) {
                published << id;
                continue;
            }
            if (verdicts[row] == PublishVerdict::Unknown)
                continue; // the broker went away: not the message's fault
            const bool park = rows->toInt64(row, 6) + 1 >= m_options.maxAttempts;
            Result<PgRows> failed = m_connection.query(
                "UPDATE keel.outbox SET attempts = attempts + 1, last_error = $2, "
                "  next_attempt_at = now() + least(power(2, attempts), 300) * interval '1 second', "
                "  parked_at = CASE WHEN $3 THEN now() END WHERE id = $1",
                {QByteArray::number(id), refusal(verdicts[row], messages[row].routingKey).toUtf8(),
                 park ? "true" : "false"});
            if (!failed)
                return failed.error();
            ++(park ? pass.parked : pass.failed);
            Metrics::instance().countOutbox(
                park ? QStringLiteral("parked") : QStringLiteral("failed"), 1);
        }
        if (!published.isEmpty()) {
            Result<PgRows> marked = m_connection.query(
                "UPDATE keel.outbox SET published_at = now() WHERE id = ANY($1::bigint[])",
                {idList(published)});
            if (!marked)
                return marked.error();
            pass.published += int(published.size());
            Metrics::instance().countOutbox(QStringLiteral("published"), published.size());
        }
        if (!brokerError.message.isEmpty()) {
            pass.brokerDown = true;
            pass.brokerError = brokerError.message;
        }
        return {};
    }
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
