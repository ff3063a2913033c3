#include "core/ops/ActionDesk.h"

#include "core/db/BoundQuery.h"
#include "core/db/QtSqlConnections.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSqlQuery>
#include <QVariant>

namespace keel {
namespace {

constexpr int MinReasonLength = 5;
constexpr int MaxTargets = 10000;

// The columns ActionRecord reads, in its order.
constexpr char RecordColumns[] =
    "a.id, a.kind, a.target_type, a.target_id, jsonb_array_length(a.targets), a.targets_hash, "
    "a.reason, a.status, a.proposed_by, a.proposed_at, a.expires_at, "
    "(SELECT string_agg(decided_by, ', ' ORDER BY id) FROM keel.approvals WHERE action_id = a.id), "
    "coalesce(a.executed_by, ''), coalesce(a.outcome::text, ''), a.payload::text, "
    "a.content_hash";

ActionRecord recordAt(const QSqlQuery &query)
{
    ActionRecord record;
    record.id = query.value(0).toLongLong();
    record.kind = query.value(1).toString();
    record.targetType = query.value(2).toString();
    record.summary = query.value(3).toString();
    record.targets = query.value(4).toInt();
    record.targetsHash = query.value(5).toString();
    record.reason = query.value(6).toString();
    record.status = query.value(7).toString();
    record.proposedBy = query.value(8).toString();
    record.proposedAt = query.value(9).toDateTime();
    record.expiresAt = query.value(10).toDateTime();
    record.decidedBy = query.value(11).toString();
    record.executedBy = query.value(12).toString();
    record.outcome = query.value(13).toString();
    record.payload = query.value(14).toString();
    record.contentHash = query.value(15).toString();
    return record;
}

QString targetsJson(const QList<ActionTarget> &targets)
{
    QJsonArray list;
    for (const ActionTarget &target : targets)
        list.append(QJsonObject{{QStringLiteral("id"), target.id},
                                {QStringLiteral("version"), target.version}});
    return QString::fromUtf8(QJsonDocument(list).toJson(QJsonDocument::Compact));
}

} // namespace

QString ActionDesk::newIdempotencyKey()
{
    QByteArray bytes(16, Qt::Uninitialized);
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32 *>(bytes.data()), 4);
    return QStringLiteral("act_") + QString::fromLatin1(bytes.toHex());
}

Status ActionDesk::validate(const ProposalRequest &request)
{
    if (request.kind.isEmpty())
        return fieldError(QStringLiteral("kind"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("kind: choose what to do"));
    if (request.reason.trimmed().size() < MinReasonLength)
        return fieldError(
            QStringLiteral("reason"), QStringLiteral("parameter_invalid"),
            QStringLiteral("reason: say why, in at least %1 characters").arg(MinReasonLength));
    if (request.targets.isEmpty() || request.targets.size() > MaxTargets)
        return fieldError(QStringLiteral("targets"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("targets: select 1 to %1 rows").arg(MaxTargets));
    if (request.idempotencyKey.size() < 8)
        return fieldError(QStringLiteral("idempotency_key"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("idempotency_key: at least 8 characters"));
    return {};
}

Result<ActionRecord> ActionDesk::propose(const ProposalRequest &request)
{
    if (Status valid = validate(request); !valid)
        return valid.error();
    QSqlQuery query(m_db);
    if (Status done = runBound(
            query,
            QStringLiteral("INSERT INTO keel.operator_actions (kind, target_type, "
                           "target_id, targets, reason, idempotency_key, payload) "
                           "VALUES (?, ?, ?, ?::jsonb, ?, ?, ?::jsonb) "
                           "ON CONFLICT (idempotency_key) DO NOTHING RETURNING id"),
            {request.kind, request.targetType, request.summary, targetsJson(request.targets),
             request.reason.trimmed(), request.idempotencyKey,
             QString::fromUtf8(QJsonDocument(request.payload).toJson(QJsonDocument::Compact))});
        !done)
        return done.error();
    const bool created = query.next();
    const qint64 id = created ? query.value(0).toLongLong() : 0;
    QSqlQuery existing(m_db);
    const QString where =
        created ? QStringLiteral("a.id = ?") : QStringLiteral("a.idempotency_key = ?");
    if (Status done = runBound(existing,
                               QStringLiteral("SELECT ") + QLatin1String(RecordColumns) +
                                   QStringLiteral(" FROM keel.operator_actions a WHERE ") + where,
                               {created ? QVariant(id) : QVariant(request.idempotencyKey)});
        !done)
        return done.error();
    if (!existing.next())
        return makeError(ErrorKind::Failed,
                         QStringLiteral("the proposal vanished after it was written"));
    ActionRecord record = recordAt(existing);
    if (!created && (record.kind != request.kind || record.targets != request.targets.size()))
        return codedError(ErrorKind::Usage, QString::fromLatin1(ActionErrorCode::Invalid),
                          QStringLiteral("idempotency_key %1 was used for another proposal (%2)")
                              .arg(request.idempotencyKey)
                              .arg(record.id));
    return record;
}

Status ActionDesk::approve(qint64 actionId, const QString &seenHash, const QString &comment)
{
    return decide(actionId, "approve", seenHash, comment);
}

Status ActionDesk::reject(qint64 actionId, const QString &comment)
{
    if (comment.trimmed().size() < MinReasonLength)
        return fieldError(
            QStringLiteral("comment"), QStringLiteral("parameter_invalid"),
            QStringLiteral("comment: say why it is rejected, in at least %1 characters")
                .arg(MinReasonLength));
    return decide(actionId, "reject", {}, comment);
}

Status ActionDesk::decide(qint64 actionId, const char *decision, const QString &seenHash,
                          const QString &comment)
{
    QSqlQuery query(m_db);
    return runBound(query,
                    QStringLiteral("INSERT INTO keel.approvals (action_id, decision, comment, "
                                   "seen_hash) VALUES (?, ?, ?, ?)"),
                    {actionId, QString::fromLatin1(decision),
                     comment.trimmed().isEmpty() ? QVariant() : QVariant(comment.trimmed()),
                     seenHash.isEmpty() ? QVariant() : QVariant(seenHash)});
}

Result<ActionExecution> ActionDesk::execute(qint64 actionId)
{
    QSqlQuery query(m_db);
    if (Status done =
            runBound(query, QStringLiteral("SELECT keel.execute_action(?)::text"), {actionId});
        !done)
        return done.error();
    if (!query.next())
        return makeError(ErrorKind::Failed, QStringLiteral("execute_action returned nothing"));
    const QJsonObject summary =
        QJsonDocument::fromJson(query.value(0).toString().toUtf8()).object();
    ActionExecution execution;
    const QString status = summary.value(QStringLiteral("status")).toString();
    execution.expired = status == QLatin1String("expired");
    execution.queued = status == QLatin1String("queued");
    execution.replayed = summary.value(QStringLiteral("replayed")).toBool();
    execution.applied = summary.value(QStringLiteral("applied")).toInt();
    execution.skipped = summary.value(QStringLiteral("skipped")).toInt();
    for (const QJsonValue &value : summary.value(QStringLiteral("targets")).toArray()) {
        const QJsonObject target = value.toObject();
        execution.targets << TargetOutcome{target.value(QStringLiteral("id")).toString(),
                                           target.value(QStringLiteral("outcome")).toString(),
                                           target.value(QStringLiteral("message")).toString(),
                                           target.value(QStringLiteral("new_id")).toString()};
    }
    return execution;
}

Result<QList<ActionRecord>> ActionDesk::queue(Queue which, bool canApprove, int limit)
{
    QString where = QStringLiteral("true");
    QVariantList binds;
    if (which == Queue::WaitingForMe) {
        // Others' open proposals wait for an approver; approved ones wait
        // for their proposer to execute them.
        where = QStringLiteral("a.expires_at > now() AND ((a.status = 'proposed' AND ? AND "
                               "a.proposed_by <> session_user) OR (a.status = 'approved' AND "
                               "a.proposed_by = session_user))");
        binds << canApprove;
    }
    binds << limit;
    QSqlQuery query(m_db);
    if (Status done = runBound(query,
                               QStringLiteral("SELECT ") + QLatin1String(RecordColumns) +
                                   QStringLiteral(" FROM keel.operator_actions a WHERE ") + where +
                                   QStringLiteral(" ORDER BY a.id DESC LIMIT ?"),
                               binds);
        !done)
        return done.error();
    QList<ActionRecord> records;
    while (query.next())
        records << recordAt(query);
    return records;
}

Result<ActionRecord> ActionDesk::find(qint64 actionId)
{
    QSqlQuery query(m_db);
    if (Status done = runBound(query,
                               QStringLiteral("SELECT ") + QLatin1String(RecordColumns) +
                                   QStringLiteral(" FROM keel.operator_actions a WHERE a.id = ?"),
                               {actionId});
        !done)
        return done.error();
    if (!query.next())
        return codedError(ErrorKind::Failed, QString::fromLatin1(ActionErrorCode::NotFound),
                          QStringLiteral("no operator action %1").arg(actionId));
    return recordAt(query);
}

Result<int> ActionDesk::expireOverdue()
{
    QSqlQuery query(m_db);
    if (Status done = runBound(query, QStringLiteral("SELECT keel.expire_actions()"), {}); !done)
        return done.error();
    return query.next() ? query.value(0).toInt() : 0;
}

} // namespace keel
