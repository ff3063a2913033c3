#pragma once

#include "core/payment/ChannelCall.h"
#include "core/payment/PaymentOutcome.h"
#include "core/payment/SettledMeanwhile.h"

#include <QByteArray>
#include <QString>

#include <optional>

namespace keel {

class IdempotencyKey;
class IdempotentOperation;
class LibpqConnection;
class ReplyRenderer;
struct ChannelResult;
struct ChargeRequest;
struct Merchant;
struct MerchantNotice;
struct PaymentContext;

// Charges: create, retrieve, capture, and settling one left in flight.
//
// A new charge costs two commits: (1) the Idempotency-Key reservation, the
// charge, its state (Authorizing) and the submit event; then the channel call
// outside any transaction; then (2) the outcome's transitions, ledger postings,
// outbox event and the stored reply, together, so the stored reply always
// matches what was committed.
class ChargeService final {
public:
    ChargeService(const PaymentContext &context, LibpqConnection &connection,
                  const ReplyRenderer &replies);

    PaymentOutcome create(const Merchant &merchant, const ChargeRequest &request,
                          const IdempotencyKey &key);
    PaymentOutcome capture(const Merchant &merchant, const QString &chargeId,
                           const std::optional<IdempotencyKey> &key);
    PaymentOutcome retrieve(const Merchant &merchant, const QString &chargeId);

    // Drives a charge left in Authorizing or Capturing by a lost answer to a
    // final state by asking the channel; used by the reconciler.
    PaymentOutcome resolveInFlight(ChargeRecord &charge);
    // The same with what the channel told keel on its own (its asynchronous
    // notification, 补单): a charge no longer in flight is left as it is.
    PaymentOutcome settleInFlight(ChargeRecord &charge, const ChannelResult &result);
    // A capture keel was told had not happened leaves the charge Authorized,
    // to be sent again under the same reference; but a twin of it still on
    // its way may have made it since. Asks the channel, and books a capture it
    // made; used by the reconciler for a while after such a refusal.
    PaymentOutcome recheckRefusedCapture(ChargeRecord &charge);

    // Without an out_trade_no the key itself names the order, so a takeover
    // of the key finds the charge its first holder created.
    static QString derivedOrderNumber(const QByteArray &keyHash);

private:
    // The order's charge; an error coded RecordVanished if there is none.
    Result<ChargeRecord> chargeOfOrder(qint64 merchantId, const QString &outTradeNo);
    PaymentOutcome answerExistingOrder(IdempotentOperation &operation, qint64 merchantId,
                                       const ChargeRequest &request, const QString &outTradeNo);
    PaymentOutcome resumeCreate(IdempotentOperation &operation, qint64 merchantId,
                                const QString &outTradeNo);
    // The channel call (asking first after a possible earlier attempt), then settle().
    PaymentOutcome callAndSettle(IdempotentOperation &operation, ChargeRecord &charge,
                                 ChargeStep step, EarlierAttempt earlier);
    PaymentOutcome startCapture(IdempotentOperation &operation, const Merchant &merchant,
                                const QString &chargeId);
    PaymentOutcome resumeCapture(IdempotentOperation &operation, const Merchant &merchant,
                                 const QString &chargeId);
    // Applies a channel outcome and stores the reply, in one pipelined transaction.
    PaymentOutcome settle(IdempotentOperation &operation, ChargeRecord &charge,
                          const ChannelResult &result, ChargeStep step);
    // After settle() lost the race to move the payment: the answer of
    // whoever moved it, if it agrees with `result`.
    PaymentOutcome settledMeanwhile(IdempotentOperation &operation, const ChargeRecord &charge,
                                    const ChannelResult &result, ChargeStep step,
                                    const Error &moved);
    // Applies a channel outcome inside an open transaction.
    Result<PaymentOutcome> applyAuthorization(ChargeRecord &charge, const ChannelResult &result);
    Result<PaymentOutcome> applyCapture(ChargeRecord &charge, const ChannelResult &result);
    Status postCapture(ChargeRecord &charge, const QString &eventType);
    // The merchant's notification of an event about `charge`, as it is now.
    MerchantNotice notice(const ChargeRecord &charge) const;

    const PaymentContext &m_context;
    LibpqConnection &m_connection;
    const ReplyRenderer &m_replies;
};

} // namespace keel
