#include "core/outbox/Outbox.h"

#include "core/db/PgConnection.h"

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

} // namespace keel
