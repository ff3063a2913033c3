#include "core/saga/SagaQuery.h"

#include "core/db/LibpqConnection.h"
#include "core/saga/SagaStore.h"
#include "core/saga/StuckSagas.h"

namespace keel {

namespace {

// The list's statement for one filter's shape: only the conditions that
// apply, each value a parameter. The connection caches prepared statements,
// whose generic plans cannot drop a "$n IS NULL OR ..." branch; a statement
// per shape keeps every plan on its index ranges.
struct ListStatement {
    QByteArray sql;
    QByteArrayList params;

    QByteArray bind(const QByteArray &value)
    {
        params << value;
        return '$' + QByteArray::number(params.size());
    }
};

ListStatement listStatement(const SagaFilter &filter)
{
    ListStatement statement;
    statement.bind(QByteArray::number(filter.attemptLimit)); // $1, in the stuck condition
    QByteArray filters = "TRUE";
    if (!filter.definition.isEmpty())
        filters += " AND s.kind = " + statement.bind(filter.definition.toUtf8());
    if (!filter.status.isEmpty())
        filters += " AND s.status = " + statement.bind(filter.status.toUtf8());
    if (filter.merchantId > 0)
        filters += " AND s.merchant_id = " + statement.bind(QByteArray::number(filter.merchantId)) +
                   "::bigint";
    if (!filter.businessKey.isEmpty())
        filters += " AND s.business_key = " + statement.bind(filter.businessKey.toUtf8());
    if (filter.olderThanSeconds > 0)
        filters += " AND s.created_at <= now() - " +
                   statement.bind(QByteArray::number(filter.olderThanSeconds)) +
                   "::int * interval '1 second'";
    QByteArray after;
    if (filter.after)
        after = "(timestamptz 'epoch' + " +
                statement.bind(QByteArray::number(filter.after->createdAtMicros)) +
                "::bigint * interval '1 microsecond', " +
                statement.bind(QByteArray::number(filter.after->id)) + "::bigint)";
    const QByteArray limit = statement.bind(QByteArray::number(filter.limit)) + "::int";
    // The stuck sagas are few (only running or compensating ones can be) and
    // come first; the rest follow oldest first through sagas_created, so a
    // page costs what it shows at any depth.
    const bool stuckLeft = !filter.after || filter.after->stuck;
    const bool restWanted = !filter.stuckOnly;
    QByteArrayList branches;
    if (stuckLeft)
        branches << "(SELECT id, created_at, true AS stuck FROM stuck" +
                        (filter.after ? " WHERE (created_at, id) > " + after : QByteArray()) +
                        " ORDER BY created_at, id LIMIT " + limit + ")";
    if (restWanted)
        branches << "(SELECT s.id, s.created_at, false FROM keel.sagas s WHERE " + filters +
                        " AND NOT EXISTS (SELECT 1 FROM stuck k WHERE k.id = s.id)" +
                        (filter.after && !filter.after->stuck
                             ? " AND (s.created_at, s.id) > " + after
                             : QByteArray()) +
                        " ORDER BY s.created_at, s.id LIMIT " + limit + ")";
    if (branches.isEmpty())
        branches << "(SELECT 0::bigint, now(), false WHERE false)";
    statement.sql =
        "WITH stuck AS MATERIALIZED (SELECT s.id, s.created_at FROM keel.sagas s WHERE " + filters +
        " AND " + stuckSagas::condition() + "), page (id, created_at, stuck) AS (" +
        branches.join(" UNION ALL ") +
        ") "
        "SELECT s.id, s.public_id, s.trans_type, s.kind, s.status, coalesce(s.merchant_id, 0), "
        "  coalesce(s.business_key, ''), s.current_step, coalesce(st.name, ''), "
        "  coalesce((SELECT max(a.attempts + a.compensation_attempts) FROM keel.saga_steps a "
        "            WHERE a.saga_id = s.id), 0), p.stuck, coalesce(s.last_error, ''), s.version, "
        "  (extract(epoch FROM s.created_at) * 1000)::bigint, "
        "  (extract(epoch FROM s.updated_at) * 1000)::bigint, "
        "  (extract(epoch FROM s.created_at) * 1000000)::bigint "
        "FROM page p JOIN keel.sagas s ON s.id = p.id "
        "LEFT JOIN keel.saga_steps st ON st.saga_id = s.id AND st.step_index = s.current_step "
        "ORDER BY p.stuck DESC, p.created_at, p.id LIMIT " +
        limit;
    return statement;
}

} // namespace

Result<QList<SagaSummary>> SagaQuery::list(const SagaFilter &filter)
{
    const ListStatement statement = listStatement(filter);
    Result<PgRows> rows = m_connection.query(statement.sql, statement.params);
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
