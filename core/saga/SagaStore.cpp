#include "core/saga/SagaStore.h"

#include "core/db/LibpqConnection.h"
#include "core/db/PgTransaction.h"
#include "core/outbox/Outbox.h"
#include "core/payment/PaymentRepository.h"

#include <QJsonDocument>

namespace keel {
namespace {

QByteArray number(qint64 value)
{
    return QByteArray::number(value);
}

QByteArray textOrNull(const QString &text)
{
    return text.isEmpty() ? QByteArray() : text.toUtf8();
}

QByteArray compact(const QJsonObject &json)
{
    return QJsonDocument(json).toJson(QJsonDocument::Compact);
}

std::optional<StepKind> kindFromName(const QString &name)
{
    for (StepKind kind : {StepKind::Http, StepKind::Charge, StepKind::Refund})
        if (stepKindName(kind) == name)
            return kind;
    return std::nullopt;
}

constexpr char SagaColumns[] =
    "s.id, s.public_id, s.merchant_id, s.kind, s.definition_version, "
    "coalesce(s.business_key, ''), s.status, s.current_step, s.version, s.compensation_rounds, "
    "s.max_compensation_rounds, s.stuck_after_seconds, coalesce(s.last_error, ''), "
    "coalesce(s.charge_id, 0), coalesce(c.public_id, ''), coalesce(s.lease_owner, ''), "
    "(extract(epoch FROM s.created_at) * 1000)::bigint, "
    "(extract(epoch FROM s.updated_at) * 1000)::bigint, "
    "coalesce((extract(epoch FROM s.finished_at) * 1000)::bigint, 0), "
    "(extract(epoch FROM s.next_attempt_at) * 1000)::bigint, s.trans_type, "
    "coalesce((extract(epoch FROM s.lease_expires_at) * 1000)::bigint, 0), "
    "coalesce(s.lease_expires_at > now(), false) "
    "FROM keel.sagas s LEFT JOIN keel.charges c ON c.id = s.charge_id ";

SagaRecord sagaFromRow(const PgRows &rows, int row)
{
    SagaRecord saga;
    saga.id = rows.toInt64(row, 0);
    saga.publicId = rows.text(row, 1);
    saga.merchantId = rows.toInt64(row, 2);
    saga.name = rows.text(row, 3);
    saga.definitionVersion = int(rows.toInt64(row, 4));
    saga.businessKey = rows.text(row, 5);
    saga.status = rows.text(row, 6);
    saga.currentStep = int(rows.toInt64(row, 7));
    saga.version = int(rows.toInt64(row, 8));
    saga.compensationRounds = int(rows.toInt64(row, 9));
    saga.maxCompensationRounds = int(rows.toInt64(row, 10));
    saga.stuckAfterSeconds = int(rows.toInt64(row, 11));
    saga.lastError = rows.text(row, 12);
    saga.chargeId = rows.toInt64(row, 13);
    saga.chargePublicId = rows.text(row, 14);
    saga.leaseOwner = rows.text(row, 15);
    saga.createdAtMs = rows.toInt64(row, 16);
    saga.updatedAtMs = rows.toInt64(row, 17);
    saga.finishedAtMs = rows.toInt64(row, 18);
    saga.nextAttemptAtMs = rows.toInt64(row, 19);
    saga.transType = rows.text(row, 20);
    saga.leaseExpiresAtMs = rows.toInt64(row, 21);
    saga.leased = !saga.leaseOwner.isEmpty() && rows.value(row, 22) == "t";
    return saga;
}

StepRecord stepFromRow(const PgRows &rows, int row)
{
    StepRecord step;
    step.index = int(rows.toInt64(row, 0));
    const QJsonObject stored = QJsonDocument::fromJson(rows.value(row, 3)).object();
    step.definition = SagaStepDefinition::fromStored(
        rows.text(row, 1), kindFromName(rows.text(row, 2)).value_or(StepKind::Http), stored);
    step.status = rows.text(row, 4);
    step.attempts = int(rows.toInt64(row, 5));
    step.compensationAttempts = int(rows.toInt64(row, 6));
    step.lastError = rows.text(row, 7);
    step.lastResponse = rows.text(row, 8);
    step.resultJson = rows.value(row, 9);
    step.startedAtMs = rows.toInt64(row, 10);
    step.finishedAtMs = rows.toInt64(row, 11);
    step.compensatedAtMs = rows.toInt64(row, 12);
    step.ambiguous = QJsonDocument::fromJson(step.resultJson)
                         .object()
                         .value(QStringLiteral("ambiguous"))
                         .toBool();
    return step;
}

} // namespace

bool StepRecord::needsCompensation() const
{
    if (!definition.compensable())
        return false;
    return status == StepStatus::Succeeded || status == StepStatus::Compensating ||
           status == StepStatus::CompensationFailed ||
           (status == StepStatus::Failed && (ambiguous || definition.compensateFailed));
}

Result<SagaRecord> SagaStore::insert(qint64 merchantId, const SagaDefinition &definition)
{
    QStringList names, kinds, definitions;
    for (const SagaStepDefinition &step : definition.steps) {
        names << step.name;
        kinds << stepKindName(step.kind);
        definitions << QString::fromUtf8(compact(step.toJson()));
    }
    const QString publicId = PaymentRepository::newPublicId(QStringLiteral("saga_"));
    Result<PgRows> rows = m_connection.query(
        "WITH s AS (INSERT INTO keel.sagas (kind, public_id, merchant_id, definition_version, "
        "    business_key, stuck_after_seconds, max_compensation_rounds, trans_type) "
        "  VALUES ($1, $2, $3, $4, $5, $6, $7, $12) RETURNING id, created_at), "
        "steps AS (INSERT INTO keel.saga_steps (saga_id, step_index, name, kind, definition) "
        "  SELECT s.id, t.ord - 1, t.name, t.kind, t.definition::jsonb FROM s, "
        "    unnest($8::text[], $9::text[], $10::text[]) WITH ORDINALITY "
        "      AS t(name, kind, definition, ord)), "
        "e AS (INSERT INTO keel.saga_events (saga_id, event, detail) "
        "  SELECT s.id, 'started', jsonb_build_object('steps', $11::int) FROM s) "
        "SELECT id, (extract(epoch FROM created_at) * 1000)::bigint, "
        "  pg_notify('keel_saga_due', 'forward') FROM s",
        {definition.name.toUtf8(), publicId.toUtf8(), number(merchantId),
         number(definition.version),
         definition.businessKey ? definition.businessKey->toUtf8() : QByteArray(),
         number(definition.stuckAfterSeconds), number(definition.maxCompensationRounds),
         LibpqConnection::arrayParam(names), LibpqConnection::arrayParam(kinds),
         LibpqConnection::arrayParam(definitions), number(definition.steps.size()),
         definition.transType.toUtf8()});
    if (!rows)
        return rows.error();
    // What was just written, without reading it back.
    SagaRecord saga;
    saga.id = rows->toInt64(0, 0);
    saga.publicId = publicId;
    saga.transType = definition.transType;
    saga.merchantId = merchantId;
    saga.name = definition.name;
    saga.definitionVersion = definition.version;
    saga.businessKey = definition.businessKey.value_or(QString());
    saga.maxCompensationRounds = definition.maxCompensationRounds;
    saga.stuckAfterSeconds = definition.stuckAfterSeconds;
    saga.createdAtMs = saga.updatedAtMs = saga.nextAttemptAtMs = rows->toInt64(0, 1);
    for (int i = 0; i < definition.steps.size(); ++i) {
        StepRecord step;
        step.index = i;
        step.definition = definition.steps[i];
        saga.steps.append(step);
    }
    return saga;
}

Result<std::optional<SagaRecord>> SagaStore::load(qint64 id)
{
    Result<PgRows> sagaRows =
        m_connection.query(QByteArray("SELECT ") + SagaColumns + "WHERE s.id = $1", {number(id)});
    if (!sagaRows)
        return sagaRows.error();
    if (sagaRows->size() == 0)
        return std::optional<SagaRecord>();
    SagaRecord saga = sagaFromRow(*sagaRows, 0);
    Result<PgRows> steps = m_connection.query(
        "SELECT step_index, name, kind, definition::text, status, attempts, "
        "  compensation_attempts, coalesce(last_error, ''), coalesce(last_response, ''), "
        "  result::text, coalesce((extract(epoch FROM started_at) * 1000)::bigint, 0), "
        "  coalesce((extract(epoch FROM finished_at) * 1000)::bigint, 0), "
        "  coalesce((extract(epoch FROM compensated_at) * 1000)::bigint, 0) "
        "FROM keel.saga_steps WHERE saga_id = $1 ORDER BY step_index",
        {number(id)});
    if (!steps)
        return steps.error();
    for (int row = 0; row < steps->size(); ++row)
        saga.steps.append(stepFromRow(*steps, row));
    return std::optional<SagaRecord>(std::move(saga));
}

Result<QList<SagaEvent>> SagaStore::events(qint64 sagaId, int limit)
{
    Result<PgRows> rows =
        m_connection.query("SELECT coalesce(step_index, -1), event, detail::text, "
                           "  (extract(epoch FROM created_at) * 1000)::bigint "
                           "FROM keel.saga_events WHERE saga_id = $1 ORDER BY id LIMIT $2",
                           {number(sagaId), number(limit)});
    if (!rows)
        return rows.error();
    QList<SagaEvent> events;
    for (int row = 0; row < rows->size(); ++row)
        events.append({int(rows->toInt64(row, 0)), rows->text(row, 1), rows->value(row, 2),
                       rows->toInt64(row, 3)});
    return events;
}

Result<std::optional<SagaRecord>> SagaStore::findByPublicId(qint64 merchantId,
                                                            const QString &publicId)
{
    Result<PgRows> rows = m_connection.query(
        "SELECT id FROM keel.sagas WHERE public_id = $1 AND ($2 = 0 OR merchant_id = $2)",
        {publicId.toUtf8(), number(merchantId)});
    if (!rows)
        return rows.error();
    if (rows->size() == 0)
        return std::optional<SagaRecord>();
    return load(rows->toInt64(0, 0));
}

Result<std::optional<SagaStore::Claim>> SagaStore::claim(const QString &status,
                                                         const QString &owner, int leaseMs)
{
    Result<PgRows> rows =
        m_connection.query("WITH due AS (SELECT id, lease_owner FROM keel.sagas "
                           "    WHERE status = $2 AND next_attempt_at <= now() "
                           "    ORDER BY next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED) "
                           "UPDATE keel.sagas s SET lease_owner = $1, "
                           "    lease_expires_at = now() + $3 * interval '1 millisecond', "
                           "    next_attempt_at = now() + $3 * interval '1 millisecond' "
                           "  FROM due WHERE s.id = due.id "
                           "RETURNING s.id, coalesce(due.lease_owner, '')",
                           {owner.toUtf8(), status.toUtf8(), number(leaseMs)});
    if (!rows)
        return rows.error();
    if (rows->size() == 0)
        return std::optional<Claim>();
    return std::optional<Claim>(Claim{rows->toInt64(0, 0), rows->text(0, 1)});
}

Status SagaStore::guardedUpdate(SagaRecord &saga, const QString &owner, const SagaChange &change)
{
    Result<PgRows> rows = m_connection.query(
        "WITH s AS (UPDATE keel.sagas SET "
        "    status = coalesce($4::text, status), current_step = $5, "
        "    lease_owner = CASE WHEN $6 THEN NULL ELSE lease_owner END, "
        "    lease_expires_at = CASE WHEN $6 THEN NULL ELSE lease_expires_at END, "
        "    next_attempt_at = CASE WHEN $6 THEN now() + $7 * interval '1 millisecond' "
        "                      ELSE lease_expires_at END, "
        "    compensation_rounds = compensation_rounds + $8, "
        "    last_error = coalesce($9::text, last_error), "
        "    charge_id = coalesce($10::bigint, charge_id), "
        "    finished_at = CASE WHEN coalesce($4::text, status) IN "
        "                    ('succeeded', 'compensated', 'parked') THEN now() END, "
        "    progressed_at = CASE WHEN coalesce($4::text, status) <> status "
        "                      OR current_step <> $5 THEN now() ELSE progressed_at END, "
        "    version = version + 1, updated_at = now() "
        "  WHERE id = $1 AND version = $2 AND CASE WHEN coalesce($3::text, '') = '' "
        "    THEN lease_owner IS NULL OR lease_expires_at < now() "
        "    ELSE lease_owner = $3::text END RETURNING id) "
        "SELECT keel.require_rows((SELECT count(*) FROM s), 1, 'saga ' || $1 || ' moved')",
        {number(saga.id), number(saga.version), owner.toUtf8(), textOrNull(change.status),
         number(change.currentStep), change.release ? "true" : "false", number(change.delayMs),
         number(change.addRounds), textOrNull(change.lastError),
         change.chargeId > 0 ? number(change.chargeId) : QByteArray()});
    if (!rows)
        return rows.error();
    ++saga.version;
    if (!change.status.isEmpty())
        saga.status = change.status;
    saga.currentStep = change.currentStep;
    saga.compensationRounds += change.addRounds;
    if (!change.lastError.isEmpty())
        saga.lastError = change.lastError;
    if (change.chargeId > 0)
        saga.chargeId = change.chargeId;
    if (change.release)
        saga.leaseOwner.clear();
    return {};
}

Status SagaStore::addEvent(qint64 sagaId, int step, const QString &event, const QJsonObject &detail)
{
    Result<PgRows> rows = m_connection.query(
        "INSERT INTO keel.saga_events (saga_id, step_index, event, detail) "
        "VALUES ($1, $2, $3, $4::jsonb)",
        {number(sagaId), step >= 0 ? number(step) : QByteArray(), event.toUtf8(), compact(detail)});
    if (!rows)
        return rows.error();
    return {};
}

Status SagaStore::beginAttempt(SagaRecord &saga, int step, bool compensation, const QString &owner,
                               int leaseMs)
{
    StepRecord &record = saga.steps[step];
    const int attempt = (compensation ? record.compensationAttempts : record.attempts) + 1;
    PgTransaction tx(m_connection, PgTransaction::Pipelined);
    Result<PgRows> moved = m_connection.query(
        "WITH s AS (UPDATE keel.sagas SET current_step = $4, "
        "    progressed_at = CASE WHEN current_step <> $4 THEN now() ELSE progressed_at END, "
        "    lease_expires_at = now() + $5 * interval '1 millisecond', "
        "    next_attempt_at = now() + $5 * interval '1 millisecond', "
        "    version = version + 1, updated_at = now() "
        "  WHERE id = $1 AND version = $2 AND lease_owner = $3 RETURNING id) "
        "SELECT keel.require_rows((SELECT count(*) FROM s), 1, 'saga ' || $1 || ' moved')",
        {number(saga.id), number(saga.version), owner.toUtf8(), number(step), number(leaseMs)});
    if (!moved)
        return moved.error();
    Result<PgRows> counted = m_connection.query(
        "UPDATE keel.saga_steps SET "
        "    attempts = attempts + CASE WHEN $3 THEN 0 ELSE 1 END, "
        "    compensation_attempts = compensation_attempts + CASE WHEN $3 THEN 1 ELSE 0 END, "
        "    status = CASE WHEN $3 THEN 'compensating' ELSE 'running' END, "
        "    started_at = coalesce(started_at, now()) "
        "WHERE saga_id = $1 AND step_index = $2",
        {number(saga.id), number(step), compensation ? "true" : "false"});
    if (!counted)
        return counted.error();
    if (Status event = addEvent(saga.id, step, QStringLiteral("attempt_started"),
                                {{QStringLiteral("op"), compensation ? QStringLiteral("compensate")
                                                                     : QStringLiteral("action")},
                                 {QStringLiteral("attempt"), attempt},
                                 {QStringLiteral("worker"), owner}});
        !event)
        return event;
    if (Status committed = tx.commit(); !committed)
        return committed;
    ++saga.version;
    saga.currentStep = step;
    (compensation ? record.compensationAttempts : record.attempts) = attempt;
    record.status = compensation ? StepStatus::Compensating : StepStatus::Running;
    return {};
}

Status SagaStore::record(SagaRecord &saga, const QString &owner, int step,
                         const StepChange &stepChange, const SagaChange &sagaChange,
                         const QJsonObject &detail, bool ownTransaction)
{
    std::optional<PgTransaction> tx;
    if (ownTransaction)
        tx.emplace(m_connection, PgTransaction::Pipelined);
    const int before = saga.version;
    if (Status updated = guardedUpdate(saga, owner, sagaChange); !updated)
        return updated;
    if (step >= 0) {
        Result<PgRows> stepRows = m_connection.query(
            "UPDATE keel.saga_steps SET status = $3, result = coalesce($4::jsonb, result), "
            "    last_error = $5, last_response = coalesce($6, last_response), "
            "    finished_at = CASE WHEN $7 THEN now() ELSE finished_at END, "
            "    compensated_at = CASE WHEN $8 THEN now() ELSE compensated_at END "
            "WHERE saga_id = $1 AND step_index = $2",
            {number(saga.id), number(step), stepChange.status.toUtf8(),
             stepChange.resultJson ? *stepChange.resultJson : QByteArray(),
             textOrNull(stepChange.lastError), textOrNull(stepChange.lastResponse),
             stepChange.finished ? "true" : "false", stepChange.compensated ? "true" : "false"});
        if (!stepRows)
            return stepRows.error();
        if (Status event = addEvent(saga.id, step, stepChange.event, detail); !event)
            return event;
    }
    if (!sagaChange.event.isEmpty()) {
        if (Status event =
                addEvent(saga.id, -1, sagaChange.event, step < 0 ? detail : QJsonObject());
            !event)
            return event;
        if (saga.terminal()) {
            const QJsonObject payload{{QStringLiteral("saga"), saga.publicId},
                                      {QStringLiteral("name"), saga.name},
                                      {QStringLiteral("status"), saga.status}};
            if (Status queued =
                    Outbox(m_connection)
                        .enqueue(QStringLiteral("saga"), saga.publicId,
                                 QStringLiteral("saga.") + saga.status, compact(payload));
                !queued)
                return queued;
        }
    }
    if (!sagaChange.notifyPool.isEmpty()) {
        Result<PgRows> notified = m_connection.query("SELECT pg_notify('keel_saga_due', $1)",
                                                     {sagaChange.notifyPool.toUtf8()});
        if (!notified)
            return notified.error();
    }
    if (tx) {
        if (Status committed = tx->commit(); !committed) {
            saga.version = before; // nothing was written: reload before trying again
            return committed;
        }
    }
    if (step < 0)
        return {};
    StepRecord &record = saga.steps[step];
    record.status = stepChange.status;
    if (stepChange.resultJson)
        record.resultJson = *stepChange.resultJson;
    record.lastError = stepChange.lastError;
    if (!stepChange.lastResponse.isEmpty())
        record.lastResponse = stepChange.lastResponse;
    return {};
}

Status SagaStore::release(const SagaRecord &saga, const QString &owner)
{
    Result<PgRows> rows =
        m_connection.query("UPDATE keel.sagas SET lease_owner = NULL, lease_expires_at = NULL, "
                           "    next_attempt_at = now() WHERE id = $1 AND lease_owner = $2",
                           {number(saga.id), owner.toUtf8()});
    if (!rows)
        return rows.error();
    return {};
}

} // namespace keel
