#pragma once

#include "core/payment/ChannelCall.h"
#include "core/payment/PaymentOutcome.h"

#include <QString>

namespace keel {

class IdempotencyKey;
class IdempotentOperation;
class LibpqConnection;
class PgTransaction;
class ReplyRenderer;
struct ChannelResult;
struct Merchant;
struct MerchantNotice;
struct PaymentContext;
struct RefundRequest;

// Refunds: create, retrieve, and settling one left pending. Same two-commit
// shape as a charge: (1) key, refund (pending) and the charge's move to
// Refunding; the channel call; (2) the outcome, ledger reversal, outbox and
// stored reply.
class RefundService final {
public:
    RefundService(const PaymentContext &context, LibpqConnection &connection,
                  const ReplyRenderer &replies);

    PaymentOutcome create(const Merchant &merchant, const RefundRequest &request,
                          const IdempotencyKey &key);
    PaymentOutcome retrieve(const Merchant &merchant, const QString &refundId);

    // Settles a refund left pending by a lost channel answer, asking the
    // channel first; used by the reconciler.
    PaymentOutcome resolveInFlight(qint64 merchantId, const QString &refundId);

private:
    // One attempt: read what the channel withheld, reserve the key, begin.
    PaymentOutcome createOnce(const Merchant &merchant, const RefundRequest &request,
                              const IdempotencyKey &key);
    // Inside the reserving transaction: the refund as asked, checked against
    // the charge (less what its channel took back), inserted with the
    // charge's move to Refunding.
    PaymentOutcome begin(IdempotentOperation &operation, PgTransaction &tx, ChargeRecord &charge,
                         RefundRecord &refund, qint64 withheld);
    PaymentOutcome resume(IdempotentOperation &operation, const Merchant &merchant,
                          const QString &chargeId, const QString &outRefundNo);
    PaymentOutcome execute(IdempotentOperation &operation, RefundRecord &refund,
                           ChargeRecord &charge, EarlierAttempt earlier);
    Status applySuccess(RefundRecord &refund, ChargeRecord &charge);
    Status applyFailure(RefundRecord &refund, ChargeRecord &charge);
    // The merchant's notification of an event about `refund`, as it is now.
    MerchantNotice notice(const RefundRecord &refund, const ChargeRecord &charge) const;

    const PaymentContext &m_context;
    LibpqConnection &m_connection;
    const ReplyRenderer &m_replies;
};

} // namespace keel
