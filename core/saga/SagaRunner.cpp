#include "core/saga/SagaRunner.h"

#include "core/Chaos.h"
#include "core/payment/PaymentContext.h"
#include "core/saga/Backoff.h"
#include "core/saga/HostLimiter.h"
#include "core/saga/HttpParticipant.h"
#include "core/saga/PaymentSteps.h"
#include "core/saga/SagaMetrics.h"
#include "core/saga/SagaParking.h"
#include "core/saga/SagaStore.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>

#include <optional>

namespace keel {
namespace {

using Verdict = StepAnswer::Verdict;

// How long a worker waits for a busy participant host before it lets the
// saga go for a moment and takes other work.
constexpr int HostWaitMs = 100;
constexpr int BusyHostDelayMs = 250;

QJsonObject attemptDetail(bool compensation, int attempt, const StepAnswer &answer,
                          qint64 elapsedMs)
{
    QJsonObject detail{{QStringLiteral("op"),
                        compensation ? QStringLiteral("compensate") : QStringLiteral("action")},
                       {QStringLiteral("attempt"), attempt},
                       {QStringLiteral("verdict"), verdictName(answer.verdict)},
                       {QStringLiteral("ms"), elapsedMs}};
    if (answer.httpStatus != 0)
        detail.insert(QStringLiteral("status"), answer.httpStatus);
    if (!answer.error.isEmpty())
        detail.insert(QStringLiteral("error"), answer.error);
    if (!answer.excerpt.isEmpty())
        detail.insert(QStringLiteral("response"), answer.excerpt);
    return detail;
}

// The step's result with `ambiguous` set: its action may have taken effect.
QByteArray markedAmbiguous(const QByteArray &resultJson)
{
    QJsonObject result = QJsonDocument::fromJson(resultJson).object();
    result.insert(QStringLiteral("ambiguous"), true);
    return QJsonDocument(result).toJson(QJsonDocument::Compact);
}

// Where a failed attempt leaves an action that must eventually succeed (a
// compensation, a TCC confirm): attempts are counted in rounds of the
// policy's attempts, and a round that ends in failure counts toward parking.
struct RoundDecision {
    bool roundOver = false;
    bool park = false;
    int delayMs = 0;
};

RoundDecision decideRound(const RetryPolicy &policy, int attempts, const SagaRecord &saga)
{
    RoundDecision decision;
    const int inRound = (attempts - 1) % policy.attempts + 1;
    decision.roundOver = inRound >= policy.attempts || !policy.retryable;
    decision.park = decision.roundOver && saga.compensationRounds + 1 >= saga.maxCompensationRounds;
    decision.delayMs = decision.roundOver ? policy.maxBackoffMs : backoffMs(policy, inRound);
    return decision;
}

} // namespace

QString poolStatus(SagaPool pool)
{
    return pool == SagaPool::Forward ? SagaStatus::Running : SagaStatus::Compensating;
}

QString poolName(SagaPool pool)
{
    return pool == SagaPool::Forward ? QStringLiteral("forward") : QStringLiteral("compensate");
}

SagaRunner::SagaRunner(const PaymentContext &context, LibpqConnection &connection,
                       const ReplyRenderer &replies, HostLimiter &hosts, QString owner, int leaseMs)
    : m_context(context), m_connection(connection), m_replies(replies), m_hosts(hosts),
      m_owner(std::move(owner)), m_leaseMs(leaseMs)
{}

Status SagaRunner::run(qint64 sagaId, SagaPool pool)
{
    Result<std::optional<SagaRecord>> loaded = SagaStore(m_connection).load(sagaId);
    if (!loaded)
        return loaded.error();
    if (!loaded->has_value())
        return {};
    SagaRecord saga = std::move(**loaded);
    while (saga.leaseOwner == m_owner && saga.status == poolStatus(pool)) {
        Result<Next> next = pool == SagaPool::Forward ? forward(saga) : compensate(saga);
        if (!next) {
            // A fenced write failed: someone else has the saga now, or the
            // database went away. Either way the lease expires on its own.
            return next.error();
        }
        if (*next == Next::Stop)
            return {};
    }
    if (saga.leaseOwner == m_owner)
        return SagaStore(m_connection).release(saga, m_owner);
    return {};
}

int SagaRunner::leaseMs(const StepRecord &step, bool compensation) const
{
    // A payment step's Idempotency-Key, held by a worker that died, can only
    // be taken over after the key's lock timeout: no use taking the saga
    // over sooner.
    if (step.definition.kind != StepKind::Http)
        return m_context.idempotency.lockTimeoutMs + m_leaseMs;
    const RetryPolicy &policy = compensation ? step.definition.compensation : step.definition.retry;
    return policy.timeoutMs + m_leaseMs;
}

StepAnswer SagaRunner::execute(const SagaRecord &saga, const StepRecord &step, bool compensation)
{
    const SagaStepDefinition &definition = step.definition;
    if (definition.kind == StepKind::Http) {
        HttpParticipant::Call call;
        call.url = compensation ? definition.compensateUrl : definition.actionUrl;
        call.gid = saga.publicId;
        call.transType = saga.transType;
        call.branchId = definition.branchId.isEmpty()
                            ? QStringLiteral("%1").arg(step.index + 1, 2, 10, QLatin1Char('0'))
                            : definition.branchId;
        call.op = compensation ? definition.compensateOperation : definition.operation;
        call.payload = definition.payload;
        call.timeoutMs = (compensation ? definition.compensation : definition.retry).timeoutMs;
        return HttpParticipant::call(call);
    }
    PaymentSteps payments(m_context, m_connection, m_replies);
    if (definition.kind == StepKind::Charge)
        return compensation ? payments.refundCharge(saga, step) : payments.charge(saga, step);
    if (compensation)
        return StepAnswer::of(Verdict::Succeeded); // a refund is not undone
    return payments.refund(saga, step);
}

Result<SagaRunner::Next> SagaRunner::attempt(SagaRecord &saga, int index, bool compensation)
{
    std::optional<HostLimiter::Slot> slot;
    const SagaStepDefinition &definition = saga.steps[index].definition;
    if (definition.kind == StepKind::Http) {
        slot.emplace(m_hosts.acquire(
            HttpParticipant::hostOf(compensation ? definition.compensateUrl : definition.actionUrl),
            HostWaitMs));
        if (!*slot) {
            SagaChange later;
            later.currentStep = saga.currentStep;
            later.delayMs = BusyHostDelayMs;
            if (Status released = SagaStore(m_connection).record(saga, m_owner, -1, {}, later, {});
                !released)
                return released.error();
            return Next::Stop;
        }
    }
    if (Status begun = SagaStore(m_connection)
                           .beginAttempt(saga, index, compensation, m_owner,
                                         leaseMs(saga.steps[index], compensation));
        !begun)
        return begun.error();
    chaosPoint(compensation ? "saga_compensation_started" : "saga_action_started");
    QElapsedTimer timer;
    timer.start();
    const StepAnswer answer = execute(saga, saga.steps[index], compensation);
    chaosPoint(compensation ? "saga_compensation_answered" : "saga_action_answered");
    slot.reset();
    const StepRecord step = saga.steps[index];
    sagaMetrics::observeAttempt(saga.name, step.definition.name, compensation, answer,
                                timer.nsecsElapsed() / 1000);
    return compensation ? recordCompensation(saga, step, answer, timer.elapsed())
                        : recordForward(saga, step, answer, timer.elapsed());
}

Result<SagaRunner::Next> SagaRunner::forward(SagaRecord &saga)
{
    if (saga.currentStep >= saga.steps.size()) {
        SagaChange done;
        done.status = SagaStatus::Succeeded;
        done.currentStep = saga.currentStep;
        done.event = QStringLiteral("succeeded");
        if (Status recorded = SagaStore(m_connection).record(saga, m_owner, -1, {}, done, {});
            !recorded)
            return recorded.error();
        sagaMetrics::countFinished(saga.name, saga.status);
        return Next::Stop;
    }
    const StepRecord &step = saga.steps[saga.currentStep];
    if (step.status == StepStatus::Succeeded || step.status == StepStatus::Skipped) {
        SagaChange past;
        past.currentStep = saga.currentStep + 1;
        past.release = false;
        if (Status recorded = SagaStore(m_connection).record(saga, m_owner, -1, {}, past, {});
            !recorded)
            return recorded.error();
        return Next::Continue;
    }
    return attempt(saga, saga.currentStep, false);
}

Result<SagaRunner::Next> SagaRunner::recordForward(SagaRecord &saga, const StepRecord &step,
                                                   const StepAnswer &answer, qint64 elapsedMs)
{
    const RetryPolicy &policy = step.definition.retry;
    StepChange stepChange;
    stepChange.lastResponse = answer.excerpt;
    stepChange.lastError = answer.error;
    SagaChange sagaChange;
    sagaChange.currentStep = step.index;
    sagaChange.chargeId = answer.chargeId;
    const bool exhausted = answer.verdict == Verdict::Retryable &&
                           (step.attempts >= policy.attempts || !policy.retryable);
    if (answer.succeeded()) {
        const bool last = step.index + 1 == saga.steps.size();
        stepChange.status = StepStatus::Succeeded;
        stepChange.finished = true;
        stepChange.resultJson = answer.resultJson.isEmpty() ? QByteArray("{}") : answer.resultJson;
        sagaChange.currentStep = step.index + 1;
        sagaChange.release = last;
        if (last) {
            sagaChange.status = SagaStatus::Succeeded;
            sagaChange.event = QStringLiteral("succeeded");
        }
    } else if (step.definition.commitPhase && answer.verdict != Verdict::Ongoing) {
        // The decision to commit is taken: a confirm is retried, never undone.
        const RoundDecision round = decideRound(policy, step.attempts, saga);
        if (round.park)
            return park(saga, step, answer, StepStatus::Failed,
                        attemptDetail(false, step.attempts, answer, elapsedMs));
        stepChange.status = StepStatus::Running;
        sagaChange.lastError = answer.error;
        sagaChange.addRounds = round.roundOver ? 1 : 0;
        sagaChange.delayMs = round.delayMs;
        if (round.roundOver)
            sagaChange.event = QStringLiteral("confirm_round_failed");
    } else if (answer.verdict == Verdict::Failed || exhausted) {
        // A business failure says the participant did nothing this time. An
        // exhausted retry does not know, and neither does a refusal after an
        // unanswered attempt: a participant may refuse the retry of an action
        // the first attempt applied. Such a step is compensated too (and a TCC
        // try always is): its compensation is harmless behind the barrier.
        const bool doubtful =
            exhausted || (step.attempts > 1 && step.definition.kind == StepKind::Http);
        stepChange.status = StepStatus::Failed;
        stepChange.finished = true;
        if (doubtful)
            stepChange.resultJson = markedAmbiguous(step.resultJson);
        sagaChange.status = SagaStatus::Compensating;
        sagaChange.currentStep =
            doubtful || step.definition.compensateFailed ? step.index : step.index - 1;
        sagaChange.lastError = answer.error;
        sagaChange.event = QStringLiteral("compensating");
        sagaChange.notifyPool = poolName(SagaPool::Compensate);
    } else {
        stepChange.status = StepStatus::Running;
        sagaChange.delayMs = backoffMs(policy, step.attempts);
    }
    if (Status recorded = SagaStore(m_connection)
                              .record(saga, m_owner, step.index, stepChange, sagaChange,
                                      attemptDetail(false, step.attempts, answer, elapsedMs));
        !recorded)
        return recorded.error();
    if (!sagaChange.status.isEmpty())
        sagaMetrics::countFinished(saga.name, saga.status);
    return sagaChange.release ? Next::Stop : Next::Continue;
}

Result<SagaRunner::Next> SagaRunner::compensate(SagaRecord &saga)
{
    int index = std::min<int>(saga.currentStep, int(saga.steps.size()) - 1);
    while (index >= 0 && !saga.steps[index].needsCompensation())
        --index;
    if (index < 0)
        return finishCompensation(saga);
    return attempt(saga, index, true);
}

Result<SagaRunner::Next> SagaRunner::finishCompensation(SagaRecord &saga)
{
    SagaChange done;
    done.status = SagaStatus::Compensated;
    done.currentStep = -1;
    done.event = QStringLiteral("compensated");
    if (Status recorded = SagaStore(m_connection).record(saga, m_owner, -1, {}, done, {});
        !recorded)
        return recorded.error();
    sagaMetrics::countFinished(saga.name, saga.status);
    return Next::Stop;
}

Result<SagaRunner::Next> SagaRunner::recordCompensation(SagaRecord &saga, const StepRecord &step,
                                                        const StepAnswer &answer, qint64 elapsedMs)
{
    const RetryPolicy &policy = step.definition.compensation;
    const QJsonObject detail = attemptDetail(true, step.compensationAttempts, answer, elapsedMs);
    StepChange stepChange;
    stepChange.lastResponse = answer.excerpt;
    stepChange.lastError = answer.error;
    SagaChange sagaChange;
    sagaChange.currentStep = step.index;
    if (answer.succeeded()) {
        stepChange.status = StepStatus::Compensated;
        stepChange.compensated = true;
        sagaChange.currentStep = step.index - 1;
        sagaChange.release = false;
    } else if (answer.verdict == Verdict::Ongoing) {
        stepChange.status = StepStatus::Compensating;
        sagaChange.delayMs = backoffMs(policy, 1);
    } else {
        const RoundDecision round = decideRound(policy, step.compensationAttempts, saga);
        if (round.park)
            return park(saga, step, answer, StepStatus::CompensationFailed, detail);
        stepChange.status =
            round.roundOver ? StepStatus::CompensationFailed : StepStatus::Compensating;
        sagaChange.lastError = answer.error;
        sagaChange.addRounds = round.roundOver ? 1 : 0;
        sagaChange.delayMs = round.delayMs;
        if (round.roundOver)
            sagaChange.event = QStringLiteral("compensation_round_failed");
    }
    if (Status recorded = SagaStore(m_connection)
                              .record(saga, m_owner, step.index, stepChange, sagaChange, detail);
        !recorded)
        return recorded.error();
    return sagaChange.release ? Next::Stop : Next::Continue;
}

Result<SagaRunner::Next> SagaRunner::park(SagaRecord &saga, const StepRecord &step,
                                          const StepAnswer &answer, const QString &stepStatus,
                                          const QJsonObject &detail)
{
    Result<qint64> parked =
        SagaParking(m_connection)
            .park(saga, m_owner, {step.index, stepStatus, answer.error, detail});
    if (!parked && parked.error().is(ErrorCode::ChannelInFlight))
        return deferPark(saga, step, parked.error().message);
    if (!parked)
        return parked.error();
    sagaMetrics::countFinished(saga.name, saga.status);
    return Next::Stop;
}

Result<SagaRunner::Next> SagaRunner::deferPark(SagaRecord &saga, const StepRecord &step,
                                               const QString &why)
{
    // The channel's answer (or the reconciler) settles the operation within
    // seconds to minutes; the last round is tried again then, so the park
    // sees what that operation moved.
    constexpr int WaitForChannelMs = 5000;
    SagaChange waiting;
    waiting.currentStep = step.index;
    waiting.delayMs = WaitForChannelMs;
    waiting.event = QStringLiteral("park_deferred");
    if (Status recorded = SagaStore(m_connection)
                              .record(saga, m_owner, -1, {}, waiting,
                                      QJsonObject{{QStringLiteral("reason"), why}});
        !recorded)
        return recorded.error();
    return Next::Stop;
}

} // namespace keel
