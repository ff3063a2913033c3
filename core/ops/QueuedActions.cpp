#include "core/ops/QueuedActions.h"

#include "core/db/LibpqConnection.h"
#include "core/saga/SagaOperations.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <optional>

namespace keel {
namespace {

constexpr int MaxPerPass = 20;

std::optional<SagaAction> sagaActionOf(const QString &kind)
{
    for (SagaAction action : {SagaAction::RetryNow, SagaAction::ForceCompensation, SagaAction::Park,
                              SagaAction::Resume, SagaAction::SkipStep})
        if (kind == QStringLiteral("saga.") + sagaActionName(action))
            return action;
    return std::nullopt;
}

QString outcomeName(SagaActionOutcome::Kind kind)
{
    using Kind = SagaActionOutcome::Kind;
    switch (kind) {
    case Kind::Done:
        return QStringLiteral("done");
    case Kind::Moved:
        return QStringLiteral("changed");
    case Kind::NotAllowed:
        return QStringLiteral("not_allowed");
    case Kind::Busy:
        return QStringLiteral("busy");
    case Kind::NotFound:
        return QStringLiteral("missing");
    case Kind::Invalid:
    case Kind::Failed:
        break;
    }
    return QStringLiteral("failed");
}

} // namespace

Result<int> QueuedActions::runOnce()
{
    int finished = 0;
    while (finished < MaxPerPass) {
        Result<bool> ran = runOne();
        if (!ran)
            return ran.error();
        if (!*ran)
            break;
        ++finished;
    }
    return finished;
}

Result<bool> QueuedActions::runOne()
{
    Result<PgRows> claimed = m_connection.query(
        "SELECT id, kind, targets::text, reason, proposed_by, claim_token::text, "
        "  coalesce(executed_by, proposed_by) FROM keel.claim_queued_action()");
    if (!claimed)
        return claimed.error();
    if (claimed->size() == 0)
        return false;
    const qint64 id = claimed->toInt64(0, 0);
    const QString kind = claimed->text(0, 1);
    const std::optional<SagaAction> action = sagaActionOf(kind);
    // The saga's own event log names the people, since the worker's login acts.
    const QString reason = QStringLiteral("%1 (guarded action #%2 proposed by %3)")
                               .arg(claimed->text(0, 3))
                               .arg(id)
                               .arg(claimed->text(0, 4));
    QJsonArray results;
    for (const QJsonValue &value : QJsonDocument::fromJson(claimed->value(0, 2)).array()) {
        const QJsonObject target = value.toObject();
        const QString sagaId = target.value(QStringLiteral("id")).toString();
        QJsonObject result{{QStringLiteral("id"), sagaId}};
        if (!action) {
            result.insert(QStringLiteral("outcome"), QStringLiteral("failed"));
            result.insert(QStringLiteral("message"),
                          QStringLiteral("this worker does not know %1").arg(kind));
        } else {
            bool numeric = false;
            const int version = target.value(QStringLiteral("version")).toString().toInt(&numeric);
            const SagaActionOutcome outcome =
                numeric ? SagaOperations(m_connection)
                              .apply({*action, sagaId, version, reason, claimed->text(0, 6)})
                        : SagaActionOutcome{SagaActionOutcome::Kind::Moved, {}, {}, {}};
            result.insert(QStringLiteral("outcome"), outcomeName(outcome.kind));
            if (!outcome.message.isEmpty())
                result.insert(QStringLiteral("message"), outcome.message);
        }
        results.append(result);
    }
    Result<PgRows> finished =
        m_connection.query("SELECT keel.finish_queued_action($1, $2::uuid, $3::jsonb)",
                           {QByteArray::number(id), claimed->value(0, 5),
                            QJsonDocument(results).toJson(QJsonDocument::Compact)});
    if (!finished)
        return finished.error();
    return true;
}

} // namespace keel
