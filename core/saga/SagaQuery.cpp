#include "core/saga/SagaQuery.h"

#include "core/db/PgConnection.h"
#include "core/saga/SagaStore.h"
#include "core/saga/StuckSagas.h"

namespace keel {

Result<QList<SagaSummary>> SagaQuery::list(const SagaFilter &filter)
{
    const QByteArray sql =
        QByteArray("WITH s AS (SELECT s.*, (") + stuckSagas::condition() +
        ") AS stuck FROM keel.sagas s "
        "  WHERE ($2::text IS NULL OR s.kind = $2) AND ($3::text IS NULL OR s.status = $3) "
        "    AND ($4::bigint IS NULL OR s.merchant_id = $4) "
        "    AND ($5::text IS NULL OR s.business_key = $5) "
        "    AND s.created_at <= now() - $6::int * interval '1 second') "
        "SELECT s.id, s.public_id, s.trans_type, s.kind, s.status, coalesce(s.merchant_id, 0), "
        "  coalesce(s.business_key, ''), s.current_step, coalesce(st.name, ''), "
        "  coalesce((SELECT max(a.attempts + a.compensation_attempts) FROM keel.saga_steps a "
        "            WHERE a.saga_id = s.id), 0), s.stuck, coalesce(s.last_error, ''), s.version, "
        "  (extract(epoch FROM s.created_at) * 1000)::bigint, "
        "  (extract(epoch FROM s.updated_at) * 1000)::bigint, "
        "  (extract(epoch FROM s.created_at) * 1000000)::bigint "
        "FROM s LEFT JOIN keel.saga_steps st ON st.saga_id = s.id AND st.step_index = "
        "  s.current_step "
        "WHERE (NOT $7::boolean OR s.stuck) "
        "  AND ($8::boolean IS NULL OR (NOT s.stuck, s.created_at, s.id) > "
        "       (NOT $8::boolean, timestamptz 'epoch' + $9::bigint * interval '1 microsecond', "
        "$10::bigint)) "
        "ORDER BY s.stuck DESC, s.created_at, s.id LIMIT $11";
    auto textOrNull = [](const QString &text) {
        return text.isEmpty() ? QByteArray() : text.toUtf8();
    };
    Result<PgRows> rows = m_connection.query(
        sql, {QByteArray::number(filter.attemptLimit), textOrNull(filter.definition),
              textOrNull(filter.status),
              filter.merchantId > 0 ? QByteArray::number(filter.merchantId) : QByteArray(),
              textOrNull(filter.businessKey), QByteArray::number(filter.olderThanSeconds),
              filter.stuckOnly ? "true" : "false",
              filter.after ? QByteArray(filter.after->stuck ? "true" : "false") : QByteArray(),
              filter.after ? QByteArray::number(filter.after->createdAtMicros) : QByteArray(),
              filter.after ? QByteArray::number(filter.after->id) : QByteArray(),
              QByteArray::number(filter.limit)});
    if (!rows)
        return rows.error();
    QList<SagaSummary> sagas;
    for (int row = 0; row < rows->size(); ++row) {
        SagaSummary saga;
        saga.id = rows->toInt64(row, 0);
        saga.publicId = rows->text(row, 1);
        saga.transType = rows->text(row, 2);
        saga.name = rows->text(row, 3);
        saga.status = rows->text(row, 4);
        saga.merchantId = rows->toInt64(row, 5);
        saga.businessKey = rows->text(row, 6);
        saga.currentStep = int(rows->toInt64(row, 7));
        saga.currentStepName = rows->text(row, 8);
        saga.mostAttempts = int(rows->toInt64(row, 9));
        saga.stuck = rows->value(row, 10) == "t";
        saga.lastError = rows->text(row, 11);
        saga.version = int(rows->toInt64(row, 12));
        saga.createdAtMs = rows->toInt64(row, 13);
        saga.updatedAtMs = rows->toInt64(row, 14);
        saga.createdAtMicros = rows->toInt64(row, 15);
        sagas.append(saga);
    }
    return sagas;
}

Result<std::optional<SagaRecord>> SagaQuery::one(const QString &publicId)
{
    SagaStore store(m_connection);
    Result<std::optional<SagaRecord>> saga = store.findByPublicId(0, publicId);
    if (!saga || !saga->has_value())
        return saga;
    Result<QList<SagaEvent>> events = store.events((*saga)->id);
    if (!events)
        return events.error();
    (*saga)->events = *events;
    return saga;
}

} // namespace keel
