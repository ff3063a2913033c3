#pragma once

#include "core/idempotency/IdempotencyStore.h"

namespace keel {

struct ChargeRecord;
struct PaymentOutcome;
struct RefundRecord;

// Turns an outcome into the reply its Idempotency-Key keeps. The API layer
// implements it; the services call it inside the transaction that commits the
// outcome, so the stored reply always matches what was committed.
class ReplyRenderer {
public:
    virtual ~ReplyRenderer() = default;
    virtual StoredResponse render(const PaymentOutcome &outcome) const = 0;
    // The objects a merchant notification carries as its `data.object`.
    virtual QByteArray renderCharge(const ChargeRecord &charge) const = 0;
    virtual QByteArray renderRefund(const RefundRecord &refund) const = 0;
};

} // namespace keel
