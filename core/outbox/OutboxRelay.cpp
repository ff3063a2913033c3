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
    for (int bucket = 0; bucket < Buckets && !pass.brokerDown; ++bucket) {
        Result<PgRows> locked =
            m_connection.query("SELECT pg_try_advisory_lock($1, $2)",
                               {QByteArray::number(RelayLockClass), QByteArray::number(bucket)});
        if (!locked)
            return locked.error();
        if (locked->value(0, 0) != "t")
            continue; // another relay works this bucket now
        const Status drained = drainBucket(bucket, pass);
        Result<PgRows> unlocked =
            m_connection.query("SELECT pg_advisory_unlock($1, $2)",
                               {QByteArray::number(RelayLockClass), QByteArray::number(bucket)});
        if (!drained)
            return drained.error();
        if (!unlocked)
            return unlocked.error();
    }
    return pass;
}

Status OutboxRelay::drainBucket(int bucket, RelayPass &pass)
{
    while (true) {
        // Due rows whose aggregate has nothing earlier still to publish.
        Result<PgRows> rows = m_connection.query(
            "SELECT o.id, o.aggregate_type, o.aggregate_id, o.event_type, o.payload::text, "
            "  (extract(epoch FROM o.created_at) * 1000)::bigint, o.attempts "
            "FROM keel.outbox o WHERE o.bucket = $1 AND o.published_at IS NULL "
            "  AND o.parked_at IS NULL AND o.next_attempt_at <= now() "
            "  AND NOT EXISTS (SELECT 1 FROM keel.outbox p WHERE p.aggregate_type = "
            "    o.aggregate_type AND p.aggregate_id = o.aggregate_id AND p.id < o.id "
            "    AND p.published_at IS NULL AND p.parked_at IS NULL) "
            "ORDER BY o.id LIMIT $2",
            {QByteArray::number(bucket), QByteArray::number(m_options.batch)});
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
            return {};
        }
        // Each aggregate's next event becomes due once this one is out:
        // look again until the bucket has nothing due.
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
        "SELECT coalesce((extract(epoch FROM now() - min(created_at)) * 1000)::bigint, 0), "
        "  count(*), (SELECT count(*) FROM keel.outbox WHERE parked_at IS NOT NULL) "
        "FROM keel.outbox WHERE published_at IS NULL AND parked_at IS NULL");
    if (!rows)
        return rows.error();
    Metrics::instance().setOutboxState(rows->toInt64(0, 0), rows->toInt64(0, 1),
                                       rows->toInt64(0, 2));
    return {};
}

} // namespace keel
