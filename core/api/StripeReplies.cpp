#include "core/api/StripeReplies.h"

#include "core/Overloaded.h"
#include "core/ServiceLog.h"
#include "core/api/ApiError.h"
#include "core/api/StripeJson.h"
#include "core/payment/PaymentOutcome.h"

#include <QDateTime>

namespace keel {
namespace {

using Kind = PaymentOutcome::Kind;

ApiError cardError(const PaymentOutcome &outcome, const QString &code, const QString &message)
{
    ApiError error;
    error.status = 402;
    error.type = QStringLiteral("card_error");
    error.code = code;
    error.message = message;
    error.chargeId = outcome.charge->publicId;
    return error;
}

ApiError invalid(const QString &code, const QString &param, const QString &message)
{
    ApiError error;
    error.code = code;
    error.param = param;
    error.message = message;
    return error;
}

ApiError retryable(int status, const QString &type, const QString &code, const QString &message,
                   int retryAfterSeconds)
{
    ApiError error;
    error.status = status;
    error.type = type;
    error.code = code;
    error.message = message;
    error.shouldRetry = true;
    error.retryAfterSeconds = retryAfterSeconds;
    return error;
}

// The refusals: what the request asked for cannot be done as asked.
ApiError refusal(const PaymentOutcome &outcome, outcomes::Refused refused)
{
    using outcomes::Refused;
    const ChargeRecord *charge = outcome.charge ? &*outcome.charge : nullptr;
    switch (refused) {
    case Refused::KeyReusedDifferently: {
        ApiError error =
            invalid(QStringLiteral("idempotency_key_in_use"), QStringLiteral("Idempotency-Key"),
                    QStringLiteral("this Idempotency-Key was already used with "
                                   "different parameters; use a new key for a new "
                                   "request"));
        error.status = 422;
        error.type = QStringLiteral("idempotency_error");
        return error;
    }
    case Refused::InvalidRequest:
        break;
    case Refused::ChargeNotCapturable:
        return invalid(charge->state == PaymentState::Captured
                           ? QStringLiteral("charge_already_captured")
                           : QStringLiteral("charge_not_capturable"),
                       QStringLiteral("id"),
                       QStringLiteral("charge %1 is %2 and cannot be captured")
                           .arg(charge->publicId, stateName(charge->state)));
    case Refused::ChargeNotRefundable:
        return invalid(QStringLiteral("charge_not_refundable"), QStringLiteral("charge"),
                       QStringLiteral("charge %1 is %2; only captured charges can be refunded")
                           .arg(charge->publicId, stateName(charge->state)));
    case Refused::ChargeHeldInSuspense:
        return invalid(QStringLiteral("charge_held_in_suspense"), QStringLiteral("charge"),
                       QStringLiteral("charge %1's money is held in suspense case %2 for "
                                      "settlement staff to resolve; it can be refunded once the "
                                      "case is closed")
                           .arg(charge->publicId, outcome.reference));
    case Refused::ChargeTakenBack:
        return invalid(QStringLiteral("charge_disputed"), QStringLiteral("charge"),
                       QStringLiteral("charge %1 was charged back by its channel; %2 of it can "
                                      "still be refunded, not %3")
                           .arg(charge->publicId)
                           .arg(outcome.refundable)
                           .arg(outcome.amount));
    case Refused::RefundExceedsBalance:
        return invalid(QStringLiteral("amount_too_large"), QStringLiteral("amount"),
                       QStringLiteral("amount %1 exceeds the %2 still refundable on charge %3")
                           .arg(outcome.amount)
                           .arg(outcome.refundable)
                           .arg(charge->publicId));
    case Refused::OrderNumberTaken: {
        ApiError error = invalid(
            QStringLiteral("out_trade_no_conflict"), QStringLiteral("out_trade_no"),
            QStringLiteral("out_trade_no %1 already belongs to charge %2 with different terms "
                           "(amount, currency, source or capture); use a new order number or "
                           "the original terms")
                .arg(outcome.reference, charge->publicId));
        error.chargeId = charge->publicId;
        return error;
    }
    case Refused::RefundNumberTaken:
        return invalid(
            QStringLiteral("out_refund_no_conflict"), QStringLiteral("out_refund_no"),
            QStringLiteral("out_refund_no %1 already belongs to refund %2 with a different amount")
                .arg(outcome.reference, outcome.refund->publicId));
    case Refused::ChargeNotFound:
    case Refused::RefundNotFound: {
        ApiError error =
            invalid(QStringLiteral("resource_missing"), outcome.error.field,
                    QStringLiteral("no such %1: %2")
                        .arg(refused == Refused::ChargeNotFound ? QStringLiteral("charge")
                                                                : QStringLiteral("refund"),
                             outcome.reference));
        error.status = 404;
        return error;
    }
    }
    return invalidRequest(outcome.error);
}

// The answers that say "not now": the same request may succeed later.
ApiError notNow(const PaymentOutcome &outcome, outcomes::NotNow notNow)
{
    using outcomes::NotNow;
    switch (notNow) {
    case NotNow::KeyInFlight:
        return retryable(409, QStringLiteral("idempotency_error"),
                         QStringLiteral("request_in_progress"),
                         QStringLiteral("a request with this Idempotency-Key is still being "
                                        "processed; retry after the Retry-After delay"),
                         outcome.retryAfterSeconds);
    case NotNow::RefundInProgress: {
        ApiError error = retryable(
            409, QStringLiteral("invalid_request_error"), QStringLiteral("refund_in_progress"),
            QStringLiteral("charge %1 has a refund in progress; retry shortly")
                .arg(outcome.charge->publicId),
            1);
        error.param = QStringLiteral("charge");
        return error;
    }
    case NotNow::Contended:
        return retryable(409, QStringLiteral("idempotency_error"),
                         QStringLiteral("request_in_progress"),
                         QStringLiteral("another request is working on this payment; retry "
                                        "shortly"),
                         outcome.retryAfterSeconds);
    case NotNow::ChannelUnavailable:
        return retryable(502, QStringLiteral("api_connection_error"),
                         QStringLiteral("channel_unavailable"),
                         QStringLiteral("the payment network did not answer; retry with the same "
                                        "Idempotency-Key"),
                         outcome.retryAfterSeconds);
    case NotNow::StoreUnavailable:
        break;
    }
    return retryable(503, QStringLiteral("api_error"), QStringLiteral("database_unavailable"),
                     QStringLiteral("keel could not reach its database; retry with the same "
                                    "Idempotency-Key"),
                     outcome.retryAfterSeconds);
}

ApiError cardFailure(const PaymentOutcome &outcome, outcomes::CardFailure failure)
{
    using outcomes::CardFailure;
    switch (failure) {
    case CardFailure::Declined: {
        ApiError error = cardError(outcome, QStringLiteral("card_declined"),
                                   QStringLiteral("Your card was declined."));
        error.declineCode = outcome.declineCode;
        return error;
    }
    case CardFailure::AuthorizationFailed:
        return cardError(outcome, QStringLiteral("processing_error"),
                         QStringLiteral("The card network could not process this charge; try "
                                        "again with a new charge."));
    case CardFailure::CaptureNotProcessed:
        break;
    }
    ApiError error =
        cardError(outcome, QStringLiteral("processing_error"),
                  QStringLiteral("the capture was not processed; the charge stays authorized"));
    error.shouldRetry = true;
    return error;
}

HttpResponse replayed(const PaymentOutcome &outcome)
{
    HttpResponse replay;
    replay.status = outcome.stored.status;
    replay.headers = outcome.stored.headers;
    replay.body = outcome.stored.body;
    replay.setHeader("Idempotent-Replayed", "true");
    return replay;
}

HttpResponse rendered(const PaymentOutcome &outcome)
{
    return std::visit(
        Overloaded{
            [&](outcomes::Settled settled) {
                return settled == outcomes::Settled::Refund
                           ? jsonResponse(200, renderRefund(*outcome.refund))
                           : jsonResponse(200, renderCharge(*outcome.charge));
            },
            [&](outcomes::CardFailure failure) { return cardFailure(outcome, failure).response(); },
            [&](outcomes::Replayed) { return replayed(outcome); },
            [&](outcomes::Refused refused) { return refusal(outcome, refused).response(); },
            [&](outcomes::NotNow later) {
                return notNow(outcome, later).response();
            }},
        outcome.family());
}

} // namespace

StoredResponse StripeReplies::render(const PaymentOutcome &outcome) const
{
    const HttpResponse response = rendered(outcome);
    return {response.status, response.headers, response.body};
}

HttpResponse StripeReplies::respond(const PaymentOutcome &outcome) const
{
    if (outcome.is(Kind::StoreUnavailable) || outcome.is(Kind::ChannelUnavailable))
        logFailure(outcome.error);
    return rendered(outcome);
}

void StripeReplies::logFailure(const Error &error) const
{
    // During an outage every request fails the same way: one line, then at
    // most one every few seconds saying how many more there were.
    constexpr qint64 QuietMs = 5000;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    qint64 last = m_lastFailureLogMs.load();
    if (now - last < QuietMs || !m_lastFailureLogMs.compare_exchange_strong(last, now)) {
        ++m_unloggedFailures;
        return;
    }
    const qint64 more = m_unloggedFailures.exchange(0);
    QString message = error.message.simplified();
    if (message.size() > 300)
        message = message.left(300) + QStringLiteral("...");
    ServiceLog::warning(
        QStringLiteral("keel gateway: request failed (%1): %2%3")
            .arg(error.code.isEmpty() ? QStringLiteral("no code") : error.code, message,
                 more > 0 ? QStringLiteral(" (and %1 more since the last report)").arg(more)
                          : QString()));
}

QByteArray StripeReplies::renderCharge(const ChargeRecord &charge) const
{
    return keel::renderCharge(charge);
}

QByteArray StripeReplies::renderRefund(const RefundRecord &refund) const
{
    return keel::renderRefund(refund);
}

} // namespace keel
