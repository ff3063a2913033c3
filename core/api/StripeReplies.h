#pragma once

#include "core/net/HttpResponse.h"
#include "core/payment/ReplyRenderer.h"

#include <atomic>

namespace keel {

struct Error;

// How a client is told what a payment operation came to, in Stripe's wire
// format: the charge or refund object, or Stripe's error object with the
// status code and retry headers its libraries act on.
class StripeReplies final : public ReplyRenderer {
public:
    StoredResponse render(const PaymentOutcome &outcome) const override;
    QByteArray renderCharge(const ChargeRecord &charge) const override;
    QByteArray renderRefund(const RefundRecord &refund) const override;
    // What to send: the rendered outcome, or a stored reply marked as replayed.
    HttpResponse respond(const PaymentOutcome &outcome) const;

private:
    void logFailure(const Error &error) const;

    mutable std::atomic<qint64> m_lastFailureLogMs{0};
    mutable std::atomic<qint64> m_unloggedFailures{0};
};

} // namespace keel
