#include "core/saga/StepVerdicts.h"

#include "core/payment/ChargeRecord.h"
#include "core/payment/PaymentOutcome.h"
#include "core/payment/PaymentState.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace keel {
namespace {

using Kind = PaymentOutcome::Kind;
using Verdict = StepAnswer::Verdict;

} // namespace

StepAnswer transientStepAnswer(const PaymentOutcome &outcome, StepAnswer::Verdict verdict)
{
    return StepAnswer::of(verdict, outcome.error.message.isEmpty()
                                       ? QStringLiteral("the payment is busy; trying again")
                                       : outcome.error.message);
}

StepAnswer refundStepAnswer(const PaymentOutcome &outcome, const ChargeRecord &charge)
{
    switch (outcome.kind) {
    case Kind::Refund:
        if (outcome.refund->status == QLatin1String("succeeded"))
            return StepAnswer::of(Verdict::Succeeded);
        if (outcome.refund->status == QLatin1String("pending"))
            return StepAnswer::of(
                Verdict::Ongoing,
                QStringLiteral("the refund %1 is pending").arg(outcome.refund->publicId));
        return StepAnswer::of(
            Verdict::Retryable,
            QStringLiteral("the channel refused the refund %1").arg(outcome.refund->publicId));
    case Kind::RefundInProgress:
    case Kind::KeyInFlight:
    case Kind::Contended:
        return transientStepAnswer(outcome, Verdict::Ongoing);
    case Kind::ChargeNotRefundable:
        if (outcome.charge && outcome.charge->amountRefunded >= outcome.charge->amountCaptured)
            return StepAnswer::of(Verdict::Succeeded);
        return StepAnswer::of(
            Verdict::Retryable,
            QStringLiteral("the charge %1 cannot be refunded now").arg(charge.publicId));
    case Kind::ChargeHeldInSuspense:
        return StepAnswer::of(Verdict::Retryable,
                              QStringLiteral("the charge %1's money is held in suspense case %2")
                                  .arg(charge.publicId, outcome.reference));
    case Kind::ChannelUnavailable:
    case Kind::StoreUnavailable:
    case Kind::Replayed:
        return transientStepAnswer(outcome, Verdict::Retryable);
    case Kind::Charge:
    case Kind::CardDeclined:
    case Kind::AuthorizationFailed:
    case Kind::CaptureNotProcessed:
    case Kind::KeyReusedDifferently:
    case Kind::InvalidRequest:
    case Kind::ChargeNotFound:
    case Kind::RefundNotFound:
    case Kind::ChargeNotCapturable:
    case Kind::RefundExceedsBalance:
    case Kind::OrderNumberTaken:
    case Kind::RefundNumberTaken:
        break;
    }
    return StepAnswer::of(Verdict::Retryable,
                          QStringLiteral("the refund was refused: %1").arg(outcome.error.message));
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
