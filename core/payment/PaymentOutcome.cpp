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

bool PaymentOutcome::final() const
{
    switch (kind) {
    case Kind::KeyInFlight:
    case Kind::RefundInProgress:
    case Kind::Contended:
    case Kind::ChannelUnavailable:
    case Kind::StoreUnavailable:
        return false;
    case Kind::Charge:
    case Kind::Refund:
    case Kind::CardDeclined:
    case Kind::AuthorizationFailed:
    case Kind::CaptureNotProcessed:
    case Kind::Replayed:
    case Kind::KeyReusedDifferently:
    case Kind::InvalidRequest:
    case Kind::ChargeNotFound:
    case Kind::RefundNotFound:
    case Kind::ChargeNotCapturable:
    case Kind::ChargeNotRefundable:
    case Kind::ChargeHeldInSuspense:
    case Kind::RefundExceedsBalance:
    case Kind::OrderNumberTaken:
    case Kind::RefundNumberTaken:
        break;
    }
    return true;
}

} // namespace keel
