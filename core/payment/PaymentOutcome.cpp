#include "core/payment/PaymentOutcome.h"

namespace keel {

PaymentOutcome PaymentOutcome::of(Kind kind)
{
    PaymentOutcome outcome;
    outcome.kind = kind;
    return outcome;
}

PaymentOutcome PaymentOutcome::ofCharge(Kind kind, const ChargeRecord &charge)
{
    PaymentOutcome outcome = of(kind);
    outcome.charge = charge;
    return outcome;
}

PaymentOutcome PaymentOutcome::ofRefund(Kind kind, const RefundRecord &refund)
{
    PaymentOutcome outcome = of(kind);
    outcome.refund = refund;
    return outcome;
}

PaymentOutcome PaymentOutcome::notFound(Kind kind, const QString &reference, const QString &field)
{
    PaymentOutcome outcome = of(kind);
    outcome.reference = reference;
    outcome.error.field = field;
    return outcome;
}

PaymentOutcome PaymentOutcome::invalid(const Error &error)
{
    PaymentOutcome outcome = of(Kind::InvalidRequest);
    outcome.error = error;
    return outcome;
}

PaymentOutcome PaymentOutcome::failure(const Error &error)
{
    PaymentOutcome outcome;
    outcome.error = error;
    if (error.is(ErrorCode::RowsMoved) || error.is(ErrorCode::SerializationFailure) ||
        error.is(ErrorCode::DeadlockDetected)) {
        outcome.kind = Kind::Contended;
        outcome.retryAfterSeconds = 1;
    } else if (error.is(ErrorCode::ChannelUnreachable)) {
        outcome.kind = Kind::ChannelUnavailable;
        outcome.retryAfterSeconds = 2;
    } else {
        outcome.kind = Kind::StoreUnavailable;
        outcome.retryAfterSeconds = 1;
    }
    return outcome;
}

outcomes::Family PaymentOutcome::family() const
{
    using namespace outcomes;
    switch (kind) {
    case Kind::Charge:
        return Settled::Charge;
    case Kind::Refund:
        return Settled::Refund;
    case Kind::CardDeclined:
        return CardFailure::Declined;
    case Kind::AuthorizationFailed:
        return CardFailure::AuthorizationFailed;
    case Kind::CaptureNotProcessed:
        return CardFailure::CaptureNotProcessed;
    case Kind::Replayed:
        return Replayed{};
    case Kind::KeyReusedDifferently:
        return Refused::KeyReusedDifferently;
    case Kind::InvalidRequest:
        return Refused::InvalidRequest;
    case Kind::ChargeNotFound:
        return Refused::ChargeNotFound;
    case Kind::RefundNotFound:
        return Refused::RefundNotFound;
    case Kind::ChargeNotCapturable:
        return Refused::ChargeNotCapturable;
    case Kind::ChargeNotRefundable:
        return Refused::ChargeNotRefundable;
    case Kind::ChargeHeldInSuspense:
        return Refused::ChargeHeldInSuspense;
    case Kind::ChargeTakenBack:
        return Refused::ChargeTakenBack;
    case Kind::RefundExceedsBalance:
        return Refused::RefundExceedsBalance;
    case Kind::OrderNumberTaken:
        return Refused::OrderNumberTaken;
    case Kind::RefundNumberTaken:
        return Refused::RefundNumberTaken;
    case Kind::KeyInFlight:
        return NotNow::KeyInFlight;
    case Kind::RefundInProgress:
        return NotNow::RefundInProgress;
    case Kind::Contended:
        return NotNow::Contended;
    case Kind::ChannelUnavailable:
        return NotNow::ChannelUnavailable;
    case Kind::StoreUnavailable:
        break;
    }
    return NotNow::StoreUnavailable;
}

bool PaymentOutcome::final() const
{
    return !std::holds_alternative<outcomes::NotNow>(family());
}

} // namespace keel
