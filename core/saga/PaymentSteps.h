#pragma once

#include "core/saga/StepAnswer.h"

#include <optional>

namespace keel {

class LibpqConnection;
class ReplyRenderer;
struct ChargeRecord;
struct PaymentContext;
struct SagaRecord;
struct StepRecord;

// The built-in saga steps that move money, driven through the same payment
// services the gateway runs. Every call is keyed by the saga, the step and
// the operation (the order and refund numbers and Idempotency-Keys are derived
// from them), so a repeated call finds what an earlier one did instead of
// charging or refunding again; the ledger postings commit with the payment's
// outcome, and the payment is the record the step's outcome is read from.
class PaymentSteps final {
public:
    PaymentSteps(const PaymentContext &context, LibpqConnection &connection,
                 const ReplyRenderer &replies);

    // charge: authorize and capture the step's amount.
    StepAnswer charge(const SagaRecord &saga, const StepRecord &step);
    // The charge step's compensation: refund whatever it captured.
    StepAnswer refundCharge(const SagaRecord &saga, const StepRecord &step);
    // refund: refund (part of) an earlier charge step's charge.
    StepAnswer refund(const SagaRecord &saga, const StepRecord &step);

    // The business number a step's charge carries (out_trade_no).
    static QString orderNumber(const SagaRecord &saga, int stepIndex);

private:
    // A charge step whose key replayed its first answer: the charge that answer made.
    StepAnswer storedChargeAnswer(qint64 merchantId, const QString &order);
    // What an earlier attempt's refund (numbers `numberPrefix`.1, .2, ...)
    // already decided, if anything.
    std::optional<StepAnswer> earlierRefund(const SagaRecord &saga, const ChargeRecord &charge,
                                            const QString &numberPrefix, int attempt);
    // Refunds what is left of the charge of `chargeStep`, under a refund
    // number unique to this attempt (`attempt`), so a refund the channel
    // refused can be tried afresh.
    StepAnswer refundRemaining(const SagaRecord &saga, int chargeStep, const QString &operation,
                               int attempt, qint64 amount);

    const PaymentContext &m_context;
    LibpqConnection &m_connection;
    const ReplyRenderer &m_replies;
};

} // namespace keel
