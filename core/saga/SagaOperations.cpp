#include "core/saga/SagaOperations.h"

#include "core/db/LibpqConnection.h"
#include "core/db/PgTransaction.h"
#include "core/saga/SagaParking.h"
#include "core/saga/SagaRunner.h"
#include "core/saga/SagaStore.h"

#include <QJsonDocument>

namespace keel {
namespace {

using Kind = SagaActionOutcome::Kind;

SagaActionOutcome outcomeOf(Kind kind, QString message = {})
{
    SagaActionOutcome outcome;
    outcome.kind = kind;
    outcome.message = std::move(message);
    return outcome;
}

SagaActionOutcome failed(const Error &error)
{
    SagaActionOutcome outcome = outcomeOf(Kind::Failed, error.message);
    outcome.error = error;
    return outcome;
}

// The step compensation would undo next, or -1.
int nextToCompensate(const SagaRecord &saga)
{
    int index = std::min<int>(saga.currentStep, int(saga.steps.size()) - 1);
    while (index >= 0 && !saga.steps[index].needsCompensation())
        --index;
    return index;
}

QString poolOf(const QString &status)
{
    return poolName(status == SagaStatus::Compensating ? SagaPool::Compensate : SagaPool::Forward);
}

} // namespace

QString sagaActionName(SagaAction action)
{
    switch (action) {
    case SagaAction::RetryNow:
        return QStringLiteral("retry_now");
    case SagaAction::ForceCompensation:
        return QStringLiteral("force_compensation");
    case SagaAction::Park:
        return QStringLiteral("park");
    case SagaAction::Resume:
        return QStringLiteral("resume");
    case SagaAction::SkipStep:
        return QStringLiteral("skip_step");
    }
    return {};
}

QString SagaOperations::refusal(SagaAction action, const SagaRecord &saga)
{
    const bool active =
        saga.status == SagaStatus::Running || saga.status == SagaStatus::Compensating;
    switch (action) {
    case SagaAction::RetryNow:
    case SagaAction::Park:
        return active ? QString()
                      : QStringLiteral("the saga is %1: only a running or compensating saga "
                                       "can be retried or parked")
                            .arg(saga.status);
    case SagaAction::ForceCompensation:
        return saga.status == SagaStatus::Running
                   ? QString()
                   : QStringLiteral("the saga is %1: only a running saga can be made to "
                                    "compensate")
                         .arg(saga.status);
    case SagaAction::Resume:
        return saga.status == SagaStatus::Parked
                   ? QString()
                   : QStringLiteral("the saga is %1: only a parked saga can be resumed")
                         .arg(saga.status);
    case SagaAction::SkipStep:
        if (!active)
            return QStringLiteral("the saga is %1: there is no step to skip").arg(saga.status);
        if (saga.status == SagaStatus::Compensating && nextToCompensate(saga) < 0)
            return QStringLiteral("nothing is left to compensate");
        if (saga.status == SagaStatus::Running && saga.currentStep >= saga.steps.size())
            return QStringLiteral("every step has run");
        return {};
    }
    return {};
}

SagaActionOutcome SagaOperations::apply(const SagaActionRequest &request)
{
    if (request.reason.trimmed().isEmpty()) {
        SagaActionOutcome invalid = outcomeOf(Kind::Invalid);
        invalid.error = fieldError(QStringLiteral("reason"), QStringLiteral("parameter_missing"),
                                   QStringLiteral("say why: a reason is required for every "
                                                  "manual action"));
        invalid.message = invalid.error.message;
        return invalid;
    }
    SagaStore store(m_connection);
    Result<std::optional<SagaRecord>> found = store.findByPublicId(0, request.sagaId);
    if (!found)
        return failed(found.error());
    if (!found->has_value())
        return outcomeOf(Kind::NotFound, QStringLiteral("there is no saga %1").arg(request.sagaId));
    SagaRecord saga = std::move(**found);
    SagaActionOutcome outcome;
    if (saga.version != request.seenVersion) {
        outcome = outcomeOf(Kind::Moved, QStringLiteral("the saga changed since it was shown "
                                                        "(version %1, now %2); look again")
                                             .arg(request.seenVersion)
                                             .arg(saga.version));
    } else if (saga.leased) {
        outcome = outcomeOf(Kind::Busy, QStringLiteral("a worker is running one of its steps "
                                                       "now; try again in a moment"));
    } else if (const QString refused = refusal(request.action, saga); !refused.isEmpty()) {
        outcome = outcomeOf(Kind::NotAllowed, refused);
    } else {
        Result<QString> actor = m_connection.scalar("SELECT session_user");
        if (!actor)
            return failed(actor.error());
        QJsonObject detail{{QStringLiteral("action"), sagaActionName(request.action)},
                           {QStringLiteral("reason"), request.reason},
                           {QStringLiteral("actor"), *actor}};
        if (!request.onBehalfOf.isEmpty())
            detail.insert(QStringLiteral("on_behalf_of"), request.onBehalfOf);
        Status applied;
        switch (request.action) {
        case SagaAction::RetryNow:
            applied = retryNow(saga, detail);
            break;
        case SagaAction::ForceCompensation:
            applied = forceCompensation(saga, detail);
            break;
        case SagaAction::Park:
            applied = park(saga, detail, request.reason);
            break;
        case SagaAction::Resume:
            applied = resume(saga, detail, request.reason);
            break;
        case SagaAction::SkipStep:
            applied = skipStep(saga, detail);
            break;
        }
        if (!applied && applied.error().is(ErrorCode::CaseClosed))
            outcome = outcomeOf(Kind::NotAllowed, applied.error().message);
        else if (!applied && applied.error().is(ErrorCode::ChannelInFlight))
            outcome = outcomeOf(Kind::Busy, applied.error().message);
        else if (!applied && !applied.error().is(ErrorCode::RowsMoved))
            return failed(applied.error());
        else
            outcome = outcomeOf(applied ? Kind::Done : Kind::Moved,
                                applied ? QString()
                                        : QStringLiteral("the saga changed while the action was "
                                                         "being applied; look again"));
    }
    Result<std::optional<SagaRecord>> now = store.load(saga.id);
    if (!now || !now->has_value())
        return now ? outcomeOf(Kind::NotFound) : failed(now.error());
    outcome.saga = std::move(**now);
    return outcome;
}

Status SagaOperations::retryNow(SagaRecord &saga, const QJsonObject &detail)
{
    SagaChange change;
    change.currentStep = saga.currentStep;
    change.event = QStringLiteral("operator_retry_now");
    change.notifyPool = poolOf(saga.status);
    return SagaStore(m_connection).record(saga, {}, -1, {}, change, detail);
}

Status SagaOperations::forceCompensation(SagaRecord &saga, const QJsonObject &detail)
{
    SagaChange change;
    change.status = SagaStatus::Compensating;
    change.event = QStringLiteral("operator_force_compensation");
    change.notifyPool = poolName(SagaPool::Compensate);
    change.lastError = detail.value(QStringLiteral("reason")).toString();
    const int current = std::min<int>(saga.currentStep, int(saga.steps.size()) - 1);
    const StepRecord &step = saga.steps[current];
    if (step.status != StepStatus::Running) {
        change.currentStep = current - 1;
        return SagaStore(m_connection).record(saga, {}, -1, {}, change, detail);
    }
    // The step was being retried: it may have acted, so it is undone too.
    QJsonObject result = QJsonDocument::fromJson(step.resultJson).object();
    result.insert(QStringLiteral("ambiguous"), true);
    StepChange stepChange;
    stepChange.status = StepStatus::Failed;
    stepChange.finished = true;
    stepChange.resultJson = QJsonDocument(result).toJson(QJsonDocument::Compact);
    stepChange.lastError = change.lastError;
    stepChange.event = QStringLiteral("operator_force_compensation");
    change.currentStep = current;
    return SagaStore(m_connection).record(saga, {}, current, stepChange, change, detail);
}

Status SagaOperations::park(SagaRecord &saga, const QJsonObject &detail, const QString &reason)
{
    const int current = std::clamp<int>(saga.currentStep, 0, int(saga.steps.size()) - 1);
    SagaParking::Request request;
    request.step = current;
    request.stepStatus = saga.steps[current].status;
    request.reason = reason;
    request.detail = detail;
    request.stepEvent = QStringLiteral("operator_park");
    return statusOf(SagaParking(m_connection).park(saga, {}, request));
}

Status SagaOperations::resume(SagaRecord &saga, const QJsonObject &detail, const QString &reason)
{
    PgTransaction tx(m_connection);
    if (!tx.begun())
        return tx.begun();
    // The database closes the case and hands its money back, or refuses
    // (ErrorCode::CaseClosed) when a person already resolved it otherwise.
    Result<PgRows> released =
        m_connection.query("SELECT keel.resume_case($1, $2, $3)",
                           {QByteArray::number(saga.id), reason.toUtf8(),
                            detail.value(QStringLiteral("on_behalf_of"))
                                .toString(detail.value(QStringLiteral("actor")).toString())
                                .toUtf8()});
    if (!released)
        return released.error();
    // Parked while undoing: undo again; parked going forward (a confirm, or
    // a person's park of a running saga): go forward again.
    bool undoing = false;
    for (const StepRecord &step : std::as_const(saga.steps))
        undoing =
            undoing ||
            (!step.definition.commitPhase &&
             (step.status == StepStatus::Compensating || step.status == StepStatus::Compensated ||
              step.status == StepStatus::CompensationFailed ||
              (step.status == StepStatus::Failed && step.definition.compensable())));
    SagaChange change;
    change.status = undoing ? SagaStatus::Compensating : SagaStatus::Running;
    change.currentStep = saga.currentStep;
    change.addRounds = -saga.compensationRounds;
    change.event = QStringLiteral("operator_resume");
    change.notifyPool = poolOf(change.status);
    QJsonObject resumed = detail;
    resumed.insert(QStringLiteral("release_transaction"), released->text(0, 0));
    if (Status recorded = SagaStore(m_connection).record(saga, {}, -1, {}, change, resumed, false);
        !recorded)
        return recorded;
    return tx.commit();
}

Status SagaOperations::skipStep(SagaRecord &saga, const QJsonObject &detail)
{
    StepChange stepChange;
    stepChange.status = StepStatus::Skipped;
    stepChange.lastError = detail.value(QStringLiteral("reason")).toString();
    stepChange.event = QStringLiteral("operator_skip_step");
    SagaChange change;
    change.notifyPool = poolOf(saga.status);
    int index = saga.currentStep;
    if (saga.status == SagaStatus::Compensating) {
        index = nextToCompensate(saga);
        change.currentStep = index - 1;
    } else {
        stepChange.finished = true;
        change.currentStep = index + 1;
    }
    return SagaStore(m_connection).record(saga, {}, index, stepChange, change, detail);
}

} // namespace keel
