#include "core/saga/StepVerdicts.h"

#include "core/Overloaded.h"

#include "core/payment/ChargeRecord.h"
#include "core/payment/PaymentOutcome.h"
#include "core/payment/PaymentState.h"
#include "core/payment/RefundRecord.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace keel {
namespace {

using Verdict = StepAnswer::Verdict;

} // namespace

StepAnswer transientStepAnswer(const PaymentOutcome &outcome, StepAnswer::Verdict verdict)
{
    return StepAnswer::of(verdict, outcome.error.message.isEmpty()
                                       ? QStringLiteral("the payment is busy; trying again")
                                       : outcome.error.message);
}

StepAnswer notNowStepAnswer(const PaymentOutcome &outcome, outcomes::NotNow later)
{
    using outcomes::NotNow;
    switch (later) {
    case NotNow::KeyInFlight:
    case NotNow::RefundInProgress:
    case NotNow::Contended:
        return transientStepAnswer(outcome, Verdict::Ongoing);
    case NotNow::ChannelUnavailable:
    case NotNow::StoreUnavailable:
        break;
    }
    return transientStepAnswer(outcome, Verdict::Retryable);
}

namespace {

StepAnswer settledRefundAnswer(const RefundRecord &refund)
{
    if (refund.status == QLatin1String("succeeded"))
        return StepAnswer::of(Verdict::Succeeded);
    if (refund.status == QLatin1String("pending"))
        return StepAnswer::of(Verdict::Ongoing,
                              QStringLiteral("the refund %1 is pending").arg(refund.publicId));
    return StepAnswer::of(Verdict::Retryable,
                          QStringLiteral("the channel refused the refund %1").arg(refund.publicId));
}

StepAnswer refusedRefundAnswer(const PaymentOutcome &outcome, const ChargeRecord &charge,
                               outcomes::Refused why)
{
    using outcomes::Refused;
    switch (why) {
    case Refused::ChargeNotRefundable:
        if (outcome.charge && outcome.charge->amountRefunded >= outcome.charge->amountCaptured)
            return StepAnswer::of(Verdict::Succeeded);
        return StepAnswer::of(
            Verdict::Retryable,
            QStringLiteral("the charge %1 cannot be refunded now").arg(charge.publicId));
    case Refused::ChargeHeldInSuspense:
        return StepAnswer::of(Verdict::Retryable,
                              QStringLiteral("the charge %1's money is held in suspense case %2")
                                  .arg(charge.publicId, outcome.reference));
    case Refused::ChargeTakenBack:
        // The customer has that money from the chargeback: a person decides
        // what the saga still owes once its retries park it.
        return StepAnswer::of(Verdict::Retryable,
                              QStringLiteral("the charge %1 was charged back by its channel; "
                                             "%2 of it is still refundable")
                                  .arg(charge.publicId)
                                  .arg(outcome.refundable));
    case Refused::KeyReusedDifferently:
    case Refused::InvalidRequest:
    case Refused::ChargeNotFound:
    case Refused::RefundNotFound:
    case Refused::ChargeNotCapturable:
    case Refused::RefundExceedsBalance:
    case Refused::OrderNumberTaken:
    case Refused::RefundNumberTaken:
        break;
    }
    return StepAnswer::of(Verdict::Retryable,
                          QStringLiteral("the refund was refused: %1").arg(outcome.error.message));
}

} // namespace

StepAnswer refundStepAnswer(const PaymentOutcome &outcome, const ChargeRecord &charge)
{
    const auto refused = [&] {
        return StepAnswer::of(
            Verdict::Retryable,
            QStringLiteral("the refund was refused: %1").arg(outcome.error.message));
    };
    return std::visit(
        Overloaded{
            [&](outcomes::Settled settled) {
                return settled == outcomes::Settled::Refund ? settledRefundAnswer(*outcome.refund)
                                                            : refused();
            },
            [&](outcomes::CardFailure) { return refused(); },
            // The key's stored answer is read again by the next attempt.
            [&](outcomes::Replayed) { return transientStepAnswer(outcome, Verdict::Retryable); },
            [&](outcomes::Refused why) { return refusedRefundAnswer(outcome, charge, why); },
            [&](outcomes::NotNow later) {
                return notNowStepAnswer(outcome, later);
            }},
        outcome.family());
}

StepAnswer chargeStepAnswer(const ChargeRecord &charge)
{
    StepAnswer answer;
    answer.chargeId = charge.id;
    answer.excerpt = QStringLiteral("%1 %2").arg(charge.publicId, stateName(charge.state));
    switch (charge.state) {
    case PaymentState::Captured:
    case PaymentState::Refunding:
    case PaymentState::Refunded:
        answer.verdict = Verdict::Succeeded;
        answer.resultJson = QJsonDocument(QJsonObject{{QStringLiteral("charge"), charge.publicId}})
                                .toJson(QJsonDocument::Compact);
        return answer;
    case PaymentState::Failed:
    case PaymentState::Canceled:
    case PaymentState::Reversed:
        answer.verdict = Verdict::Failed;
        answer.error =
            QStringLiteral("the charge %1 is %2").arg(charge.publicId, stateName(charge.state));
        return answer;
    case PaymentState::Created:
    case PaymentState::Authorizing:
    case PaymentState::Authorized:
    case PaymentState::Capturing:
        break;
    }
    answer.verdict = Verdict::Ongoing;
    answer.error =
        QStringLiteral("the charge %1 is still %2").arg(charge.publicId, stateName(charge.state));
    return answer;
}

} // namespace keel
