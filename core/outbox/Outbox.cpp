#include "core/outbox/Outbox.h"

#include "core/db/LibpqConnection.h"

namespace keel {

Status Outbox::enqueue(const QString &aggregateType, const QString &aggregateId,
                       const QString &eventType, const QByteArray &payloadJson)
{
    Result<PgRows> rows = m_session.query(
        "INSERT INTO keel.outbox (aggregate_type, aggregate_id, event_type, payload) "
        "VALUES ($1, $2, $3, $4::jsonb)",
        {aggregateType.toUtf8(), aggregateId.toUtf8(), eventType.toUtf8(), payloadJson});
    if (!rows)
        return rows.error();
    return {};
}

Status Outbox::enqueue(const QString &aggregateType, const QString &aggregateId,
                       const QString &eventType, const QByteArray &payloadJson,
                       const MerchantNotice &notice)
{
    // No notification row when the merchant has no notify_url.
    Result<PgRows> rows = m_session.query(
        "WITH event AS (INSERT INTO keel.outbox (aggregate_type, aggregate_id, event_type, "
        "    payload) VALUES ($1, $2, $3, $4::jsonb) RETURNING id, created_at) "
        "INSERT INTO keel.notifications (merchant_id, outbox_id, event_id, event_type, object_id, "
        "  charge_id, body) "
        "SELECT m.id, e.id, 'evt_' || e.id, $3, $2, $6, json_build_object('id', 'evt_' || e.id, "
        "  'object', 'event', 'type', $3::text, "
        "  'created', extract(epoch FROM e.created_at)::bigint, 'livemode', false, "
        "  'data', json_build_object('object', $7::json))::text "
        "FROM event e JOIN keel.merchants m ON m.id = $5 AND m.notify_url IS NOT NULL",
        {aggregateType.toUtf8(), aggregateId.toUtf8(), eventType.toUtf8(), payloadJson,
         QByteArray::number(notice.merchantId), notice.chargeId.toUtf8(), notice.objectJson});
    if (!rows)
        return rows.error();
    return {};
}

} // namespace keel
