#include "core/payment/RefundService.h"

#include "core/Chaos.h"
#include "core/db/LibpqConnection.h"
#include "core/db/PgTransaction.h"
#include "core/idempotency/Fingerprint.h"
#include "core/idempotency/IdempotencyKey.h"
#include "core/json/JsonWriter.h"
#include "core/ledger/Ledger.h"
#include "core/merchant/Merchant.h"
#include "core/metrics/Metrics.h"
#include "core/outbox/Outbox.h"
#include "core/payment/ChannelCall.h"
#include "core/payment/ChargeService.h"
#include "core/payment/IdempotentOperation.h"
#include "core/payment/PaymentContext.h"
#include "core/payment/PaymentMetrics.h"
#include "core/payment/PaymentRepository.h"
#include "core/payment/RefundRepository.h"
#include "core/payment/RefundRequest.h"
#include "core/payment/ReplyRenderer.h"

#include <algorithm>

namespace keel {
namespace {

using Kind = PaymentOutcome::Kind;

constexpr char RefundsEndpoint[] = "POST /v1/refunds";

QByteArray refundEvent(const RefundRecord &refund)
{
    JsonWriter json;
    json.beginObject()
        .field(QStringLiteral("refund"), refund.publicId)
        .field(QStringLiteral("charge"), refund.chargePublicId)
        .field(QStringLiteral("amount"), refund.amount)
        .field(QStringLiteral("currency"), refund.currency)
        .field(QStringLiteral("status"), refund.status)
        .endObject();
    return json.take();
}

// The refund as asked for, before it is checked against the charge: without
// an amount, all that is left of it.
Result<RefundRecord> refundFor(const RefundRequest &request, const ChargeRecord &charge,
                               qint64 withheld, const Currency &currency, const QByteArray &keyHash)
{
    RefundRecord refund;
    refund.chargeId = charge.id;
    refund.chargePublicId = charge.publicId;
    refund.outRefundNo = request.outRefundNo.value_or(ChargeService::derivedOrderNumber(keyHash));
    refund.amount = std::max<qint64>(0, charge.amountCaptured - charge.amountRefunded - withheld);
    if (request.amountText) {
        Result<qint64> parsed = parseMinorUnits(*request.amountText, currency, 0);
        if (!parsed)
            return parsed.error();
        refund.amount = *parsed;
    }
    refund.currency = charge.currency;
    if (!request.reason.isEmpty())
        refund.reason = request.reason;
    refund.metadataJson = JsonWriter::textObject(request.metadata);
    refund.terms = Fingerprint(QStringLiteral("refund-terms"))
                       .add(QStringLiteral("amount"), refund.amount)
                       .add(QStringLiteral("charge"), charge.publicId)
                       .hash();
    return refund;
}

} // namespace

RefundService::RefundService(const PaymentContext &context, LibpqConnection &connection,
                             const ReplyRenderer &replies)
    : m_context(context), m_connection(connection), m_replies(replies)
{}

PaymentOutcome RefundService::create(const Merchant &merchant, const RefundRequest &request,
                                     const IdempotencyKey &key)
{
    PaymentOutcome first = createOnce(merchant, request, key);
    // A dispute or a take-back committed between the read of what the channel
    // withheld and the refund's insert, and the database refused the refund.
    // Nothing of the attempt was kept, its key's reservation neither: asked
    // again, the charge answers as if the dispute had been known at once
    // (charge_disputed; a refund without an amount, what the channel left).
    if (first.error.is(ErrorCode::RefundBeyondWithheld))
        return createOnce(merchant, request, key);
    return first;
}

PaymentOutcome RefundService::createOnce(const Merchant &merchant, const RefundRequest &request,
                                         const IdempotencyKey &key)
{
    const auto found =
        foundOr(PaymentRepository(m_connection).findByPublicId(merchant.id, request.chargeId),
                Kind::ChargeNotFound, request.chargeId, QStringLiteral("charge"));
    if (const auto *answer = std::get_if<PaymentOutcome>(&found))
        return *answer;
    ChargeRecord charge = std::get<ChargeRecord>(found);
    const std::optional<Currency> currency = m_context.currencies.find(charge.currency);
    // Read before the transaction, for the default amount; the database checks
    // it again under the charge's lock (refunds_admit_withheld).
    const Result<qint64> withheld = RefundRepository(m_connection).withheldByChannel(charge.id);
    if (!withheld)
        return PaymentOutcome::failure(withheld.error());
    IdempotentOperation operation(m_context, m_connection, m_replies, key.scopedHash(merchant.id));
    Result<RefundRecord> asked =
        refundFor(request, charge, *withheld, *currency, operation.keyHash());
    if (!asked)
        return PaymentOutcome::invalid(asked.error());
    RefundRecord refund = *asked;

    PgTransaction tx(m_connection);
    if (!tx.begun())
        return PaymentOutcome::failure(tx.begun().error());
    Result<bool> reserved = operation.reserve(merchant.id, QString::fromLatin1(RefundsEndpoint),
                                              request.fingerprint, request.chargeId);
    if (reserved && !*reserved)
        (void)tx.rollback(); // a takeover must not be undone with the reservation
    const IdempotentOperation::Admitted admitted = operation.admit(reserved, request.fingerprint);
    switch (admitted.how) {
    case IdempotentOperation::Admission::Answered:
        return admitted.answer;
    case IdempotentOperation::Admission::Retry:
        return PaymentOutcome::failure(
            codedError(ErrorKind::Failed, QString::fromLatin1(ErrorCode::RowsMoved),
                       QStringLiteral("the Idempotency-Key expired meanwhile")));
    case IdempotentOperation::Admission::TookOver:
        return resume(operation, merchant, request.chargeId, refund.outRefundNo);
    case IdempotentOperation::Admission::New:
        break;
    }
    PaymentOutcome begun = begin(operation, tx, charge, refund, *withheld);
    // Only a refund begun just now (it has an id and is pending) goes to the channel.
    if (!begun.is(Kind::Refund) || refund.status != QLatin1String("pending") || refund.id == 0)
        return begun;
    chaosPoint("refund_started");
    return execute(operation, refund, charge, EarlierAttempt::None);
}

PaymentOutcome RefundService::begin(IdempotentOperation &operation, PgTransaction &tx,
                                    ChargeRecord &charge, RefundRecord &refund, qint64 withheld)
{
    RefundRepository refunds(m_connection);
    // Business uniqueness first: a known out_refund_no answers with its refund.
    Result<std::optional<RefundRecord>> existing =
        refunds.findByRefundNumber(charge.merchantId, charge.id, refund.outRefundNo);
    if (!existing)
        return PaymentOutcome::failure(existing.error());
    if (existing->has_value()) {
        if ((*existing)->terms == refund.terms)
            return operation.finish(tx, PaymentOutcome::ofRefund(Kind::Refund, **existing));
        PaymentOutcome taken = PaymentOutcome::ofRefund(Kind::RefundNumberTaken, **existing);
        taken.reference = refund.outRefundNo;
        return operation.finish(tx, taken);
    }
    // Not stored: once the other refund finishes, this one may go through.
    if (charge.state == PaymentState::Refunding)
        return PaymentOutcome::ofCharge(Kind::RefundInProgress, charge);
    if (charge.state != PaymentState::Captured)
        return operation.finish(tx, PaymentOutcome::ofCharge(Kind::ChargeNotRefundable, charge));
    Result<PgRows> held =
        m_connection.query("SELECT id FROM keel.suspense_cases WHERE charge_id = $1 "
                           "AND status IN ('open', 'in_review') AND amount > 0 "
                           "AND direction = 'held' LIMIT 1",
                           {QByteArray::number(charge.id)});
    if (!held)
        return PaymentOutcome::failure(held.error());
    if (held->size() > 0) {
        PaymentOutcome inSuspense = PaymentOutcome::ofCharge(Kind::ChargeHeldInSuspense, charge);
        inSuspense.reference = held->text(0, 0);
        return operation.finish(tx, inSuspense);
    }
    const qint64 refundable = charge.amountCaptured - charge.amountRefunded - withheld;
    if (withheld > 0 && (refund.amount > refundable || refundable <= 0)) {
        PaymentOutcome chargedBack = PaymentOutcome::ofCharge(Kind::ChargeTakenBack, charge);
        chargedBack.amount = refund.amount;
        chargedBack.refundable = std::max<qint64>(0, refundable);
        return operation.finish(tx, chargedBack);
    }
    if (refund.amount > refundable) {
        PaymentOutcome tooLarge = PaymentOutcome::ofCharge(Kind::RefundExceedsBalance, charge);
        tooLarge.amount = refund.amount;
        tooLarge.refundable = refundable;
        return operation.finish(tx, tooLarge);
    }
    Result<std::optional<RefundRecord>> inserted = refunds.insert(refund);
    if (!inserted)
        return PaymentOutcome::failure(inserted.error());
    if (!inserted->has_value()) // a concurrent request just took this out_refund_no
        return PaymentOutcome::failure(
            codedError(ErrorKind::Failed, QString::fromLatin1(ErrorCode::RowsMoved),
                       QStringLiteral("another request is creating this refund")));
    refund = **inserted;
    if (Status moved =
            PaymentRepository(m_connection).transition(charge, {QStringLiteral("refund")}, {});
        !moved)
        return PaymentOutcome::failure(moved.error());
    if (Status committed = tx.commit(); !committed)
        return PaymentOutcome::failure(committed.error());
    paymentMetrics::countTransition(PaymentState::Captured, PaymentState::Refunding);
    return PaymentOutcome::ofRefund(Kind::Refund, refund);
}

PaymentOutcome RefundService::resume(IdempotentOperation &operation, const Merchant &merchant,
                                     const QString &chargeId, const QString &outRefundNo)
{
    Result<std::optional<ChargeRecord>> charge =
        PaymentRepository(m_connection).findByPublicId(merchant.id, chargeId);
    if (!charge)
        return PaymentOutcome::failure(charge.error());
    Result<std::optional<RefundRecord>> refund =
        charge->has_value() ? RefundRepository(m_connection)
                                  .findByRefundNumber(merchant.id, (*charge)->id, outRefundNo)
                            : Result<std::optional<RefundRecord>>(std::nullopt);
    if (!refund)
        return PaymentOutcome::failure(refund.error());
    if (!charge->has_value() || !refund->has_value())
        return PaymentOutcome::failure(codedError(ErrorKind::Failed,
                                                  QString::fromLatin1(ErrorCode::RecordVanished),
                                                  QStringLiteral("taken-over refund vanished")));
    if ((*refund)->status == QLatin1String("pending") &&
        (*charge)->state == PaymentState::Refunding)
        return execute(operation, **refund, **charge, EarlierAttempt::Possible);
    return operation.finish(PaymentOutcome::ofRefund(Kind::Refund, **refund), (*refund)->publicId);
}

PaymentOutcome RefundService::execute(IdempotentOperation &operation, RefundRecord &refund,
                                      ChargeRecord &charge, EarlierAttempt earlier)
{
    Result<ChannelResult> result = callChannel(
        *m_context.channel,
        {refund.publicId, QStringLiteral("refund"), refund.amount, refund.currency, charge.source,
         true, charge.publicId, charge.createdEpoch, false, charge.amount},
        earlier);
    if (!result)
        return PaymentOutcome::failure(result.error());
    chaosPoint("refund_channel_answered");
    if (result->outcome == ChannelOutcome::Approved)
        if (Status prepared =
                Ledger(m_connection).prepareAccounts(charge.merchantId, charge.currency);
            !prepared)
            return PaymentOutcome::failure(prepared.error());
    PgTransaction tx(m_connection, PgTransaction::Pipelined);
    Status applied;
    if (result->outcome == ChannelOutcome::Approved) {
        applied = applySuccess(refund, charge);
        if (applied)
            applied = RefundRepository(m_connection)
                          .keepChannelReference(refund, result->channelReference);
    } else if (result->outcome != ChannelOutcome::Unknown)
        applied = applyFailure(refund, charge);
    if (!applied)
        return PaymentOutcome::failure(applied.error());
    return operation.finish(tx, PaymentOutcome::ofRefund(Kind::Refund, refund), refund.publicId);
}

MerchantNotice RefundService::notice(const RefundRecord &refund, const ChargeRecord &charge) const
{
    return {charge.merchantId, charge.publicId, m_replies.renderRefund(refund)};
}

Status RefundService::applySuccess(RefundRecord &refund, ChargeRecord &charge)
{
    const bool full = charge.amountRefunded + refund.amount >= charge.amountCaptured;
    const QString event = full ? QStringLiteral("refund_ok") : QStringLiteral("refund_partial_ok");
    const PaymentState before = charge.state;
    PaymentRepository repository(m_connection);
    if (Status moved = repository.transition(charge, {event}, {},
                                             m_context.channel->name() +
                                                 QStringLiteral(":refund:") + refund.publicId);
        !moved)
        return moved;
    if (Status status =
            RefundRepository(m_connection).setStatus(refund, QStringLiteral("succeeded"));
        !status)
        return status;
    if (Status added = repository.addRefunded(charge, refund.amount); !added)
        return added;
    if (Status posted = Ledger(m_connection)
                            .postRefund(refund.id, {.chargeId = charge.id,
                                                    .merchantId = charge.merchantId,
                                                    .currency = charge.currency,
                                                    .amount = refund.amount});
        !posted)
        return posted;
    if (Status queued = Outbox(m_connection)
                            .enqueue(QStringLiteral("refund"), refund.publicId,
                                     QStringLiteral("refund.succeeded"), refundEvent(refund),
                                     notice(refund, charge));
        !queued)
        return queued;
    paymentMetrics::countTransition(before, charge.state);
    Metrics::instance().countPosting(Metrics::Posting::Refund);
    Metrics::instance().countVolume(Metrics::Posting::Refund, refund.currency, refund.amount);
    return {};
}

Status RefundService::applyFailure(RefundRecord &refund, ChargeRecord &charge)
{
    if (Status moved =
            PaymentRepository(m_connection).transition(charge, {QStringLiteral("refund_fail")}, {});
        !moved)
        return moved;
    if (Status status = RefundRepository(m_connection).setStatus(refund, QStringLiteral("failed"));
        !status)
        return status;
    if (Status queued =
            Outbox(m_connection)
                .enqueue(QStringLiteral("refund"), refund.publicId, QStringLiteral("refund.failed"),
                         refundEvent(refund), notice(refund, charge));
        !queued)
        return queued;
    paymentMetrics::countTransition(PaymentState::Refunding, PaymentState::Captured);
    return {};
}

PaymentOutcome RefundService::resolveInFlight(qint64 merchantId, const QString &refundId)
{
    Result<std::optional<RefundRecord>> refund =
        RefundRepository(m_connection).findByPublicId(merchantId, refundId);
    if (!refund)
        return PaymentOutcome::failure(refund.error());
    Result<std::optional<ChargeRecord>> charge =
        refund->has_value()
            ? PaymentRepository(m_connection).findByPublicId(merchantId, (*refund)->chargePublicId)
            : Result<std::optional<ChargeRecord>>(std::nullopt);
    if (!charge)
        return PaymentOutcome::failure(charge.error());
    if (!refund->has_value() || !charge->has_value())
        return PaymentOutcome::failure(
            codedError(ErrorKind::Failed, QString::fromLatin1(ErrorCode::RecordVanished),
                       QStringLiteral("refund %1 or its charge vanished").arg(refundId)));
    if ((*refund)->status != QLatin1String("pending") ||
        (*charge)->state != PaymentState::Refunding)
        return PaymentOutcome::ofRefund(Kind::Refund, **refund);
    IdempotentOperation unkeyed(m_context, m_connection, m_replies, {});
    return execute(unkeyed, **refund, **charge, EarlierAttempt::Possible);
}

PaymentOutcome RefundService::retrieve(const Merchant &merchant, const QString &refundId)
{
    const auto found = foundOr(RefundRepository(m_connection).findByPublicId(merchant.id, refundId),
                               Kind::RefundNotFound, refundId);
    if (const auto *answer = std::get_if<PaymentOutcome>(&found))
        return *answer;
    return PaymentOutcome::ofRefund(Kind::Refund, std::get<RefundRecord>(found));
}

} // namespace keel
