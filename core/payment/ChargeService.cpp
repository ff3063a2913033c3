#include "core/payment/ChargeService.h"

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
#include "core/payment/ChargeRequest.h"
#include "core/payment/IdempotentOperation.h"
#include "core/payment/PaymentContext.h"
#include "core/payment/PaymentMetrics.h"
#include "core/payment/PaymentRepository.h"
#include "core/payment/ReplyRenderer.h"

namespace keel {
namespace {

using Kind = PaymentOutcome::Kind;

constexpr char CaptureEndpoint[] = "POST /v1/charges/{id}/capture";

QByteArray failurePayload(const QString &code, const QString &message, const QString &declineCode)
{
    JsonWriter json;
    json.beginObject()
        .field(QStringLiteral("failure_code"), code)
        .field(QStringLiteral("failure_message"), message);
    if (!declineCode.isEmpty())
        json.field(QStringLiteral("decline_code"), declineCode);
    json.endObject();
    return json.take();
}

QByteArray eventPayload(const ChargeRecord &charge)
{
    JsonWriter json;
    json.beginObject()
        .field(QStringLiteral("charge"), charge.publicId)
        .field(QStringLiteral("merchant_id"), charge.merchantId)
        .field(QStringLiteral("out_trade_no"), charge.outTradeNo)
        .field(QStringLiteral("amount"), charge.amount)
        .field(QStringLiteral("amount_captured"), charge.amountCaptured)
        .field(QStringLiteral("currency"), charge.currency)
        .field(QStringLiteral("state"), stateName(charge.state))
        .endObject();
    return json.take();
}

ChannelRequest channelRequest(const ChargeRecord &charge, const QString &operation)
{
    return {charge.publicId, operation,
            charge.amount,   charge.currency,
            charge.source,   operation == QLatin1String("capture") || charge.capture,
            charge.publicId, charge.createdEpoch,
            false,           charge.amount};
}

} // namespace

ChargeService::ChargeService(const PaymentContext &context, LibpqConnection &connection,
                             const ReplyRenderer &replies)
    : m_context(context), m_connection(connection), m_replies(replies)
{}

QString ChargeService::derivedOrderNumber(const QByteArray &keyHash)
{
    return QStringLiteral("idem:") + QString::fromLatin1(keyHash.toHex().left(40));
}

PaymentOutcome ChargeService::create(const Merchant &merchant, const ChargeRequest &request,
                                     const IdempotencyKey &key)
{
    IdempotentOperation operation(m_context, m_connection, m_replies, key.scopedHash(merchant.id));
    const QString outTradeNo = request.outTradeNo.value_or(derivedOrderNumber(operation.keyHash()));
    PaymentRepository repository(m_connection);
    for (int attempt = 0; attempt < 3; ++attempt) {
        // One statement: the key reserved and, only then, the order's first write.
        Result<PaymentRepository::Intake> intake = repository.reserveAndInsertCharge(
            operation.store(), operation.keyHash(), m_context.expectedDurationMs, merchant.id,
            request, outTradeNo, m_context.channel->statementChannel());
        if (!intake)
            return PaymentOutcome::failure(intake.error());
        const IdempotentOperation::Admitted admitted =
            operation.admit(intake->reserved, request.fingerprint);
        switch (admitted.how) {
        case IdempotentOperation::Admission::Retry:
            continue;
        case IdempotentOperation::Admission::Answered:
            return admitted.answer;
        case IdempotentOperation::Admission::TookOver:
            return resumeCreate(operation, merchant.id, outTradeNo);
        case IdempotentOperation::Admission::New:
            break;
        }
        if (!intake->charge)
            return answerExistingOrder(operation, merchant.id, request, outTradeNo);
        paymentMetrics::countTransition(PaymentState::Created, PaymentState::Authorizing);
        chaosPoint("charge_reserved");
        return callAndSettle(operation, *intake->charge, ChargeStep::Authorize,
                             EarlierAttempt::None);
    }
    return PaymentOutcome::failure(
        makeError(ErrorKind::Failed, QStringLiteral("the Idempotency-Key kept expiring")));
}

Result<ChargeRecord> ChargeService::chargeOfOrder(qint64 merchantId, const QString &outTradeNo)
{
    Result<std::optional<ChargeRecord>> found =
        PaymentRepository(m_connection).findByOrder(merchantId, outTradeNo);
    if (!found)
        return found.error();
    if (!found->has_value())
        return codedError(ErrorKind::Failed, QString::fromLatin1(ErrorCode::RecordVanished),
                          QStringLiteral("order %1 has no charge").arg(outTradeNo));
    return **found;
}

PaymentOutcome ChargeService::answerExistingOrder(IdempotentOperation &operation, qint64 merchantId,
                                                  const ChargeRequest &request,
                                                  const QString &outTradeNo)
{
    // Business uniqueness behind the key: the same order number.
    Result<ChargeRecord> existing = chargeOfOrder(merchantId, outTradeNo);
    if (!existing)
        return PaymentOutcome::failure(existing.error());
    const ChargeRecord &charge = *existing;
    if (charge.terms == request.terms)
        return operation.finish(PaymentOutcome::ofCharge(Kind::Charge, charge), charge.publicId);
    PaymentOutcome taken = PaymentOutcome::ofCharge(Kind::OrderNumberTaken, charge);
    taken.reference = outTradeNo;
    return operation.finish(taken);
}

PaymentOutcome ChargeService::resumeCreate(IdempotentOperation &operation, qint64 merchantId,
                                           const QString &outTradeNo)
{
    Result<ChargeRecord> found = chargeOfOrder(merchantId, outTradeNo);
    if (!found)
        return PaymentOutcome::failure(found.error());
    ChargeRecord charge = *found;
    if (charge.state == PaymentState::Authorizing)
        return callAndSettle(operation, charge, ChargeStep::Authorize, EarlierAttempt::Possible);
    return operation.finish(PaymentOutcome::ofCharge(Kind::Charge, charge), charge.publicId);
}

PaymentOutcome ChargeService::callAndSettle(IdempotentOperation &operation, ChargeRecord &charge,
                                            ChargeStep step, EarlierAttempt earlier)
{
    const bool capturing = step == ChargeStep::Capture;
    Result<ChannelResult> result = callChannel(
        *m_context.channel,
        channelRequest(charge, capturing ? QStringLiteral("capture") : QStringLiteral("authorize")),
        earlier);
    if (!result)
        return PaymentOutcome::failure(result.error());
    chaosPoint(capturing ? "capture_channel_answered" : "charge_channel_answered");
    return settle(operation, charge, *result, step);
}

PaymentOutcome ChargeService::settle(IdempotentOperation &operation, ChargeRecord &charge,
                                     const ChannelResult &result, ChargeStep step)
{
    const bool capturing = step == ChargeStep::Capture;
    if (result.outcome == ChannelOutcome::Approved && (capturing || charge.capture))
        if (Status prepared =
                Ledger(m_connection).prepareAccounts(charge.merchantId, charge.currency);
            !prepared)
            return PaymentOutcome::failure(prepared.error());
    // The outcome, its postings, the outbox event and the stored reply: one
    // transaction, sent in one round trip.
    Error moved;
    {
        PgTransaction tx(m_connection, PgTransaction::Pipelined);
        if (result.outcome == ChannelOutcome::Approved)
            if (Status kept = PaymentRepository(m_connection)
                                  .keepChannelReference(charge, result.channelReference);
                !kept)
                return PaymentOutcome::failure(kept.error());
        Result<PaymentOutcome> outcome =
            capturing ? applyCapture(charge, result) : applyAuthorization(charge, result);
        if (outcome)
            return operation.finish(tx, *outcome, charge.publicId);
        if (!outcome.error().is(ErrorCode::RowsMoved))
            return PaymentOutcome::failure(outcome.error());
        moved = outcome.error();
    }
    return settledMeanwhile(operation, charge, result, step, moved);
}

PaymentOutcome ChargeService::settledMeanwhile(IdempotentOperation &operation,
                                               const ChargeRecord &charge,
                                               const ChannelResult &result, ChargeStep step,
                                               const Error &moved)
{
    // The channel's notification (or the reconciler) settled the payment
    // while this request waited for the same answer: if it agrees, that is
    // this request's answer too.
    Result<std::optional<ChargeRecord>> found =
        PaymentRepository(m_connection).findByPublicId(charge.merchantId, charge.publicId);
    if (!found)
        return PaymentOutcome::failure(found.error());
    if (!found->has_value())
        return PaymentOutcome::failure(moved);
    const ChargeRecord &now = **found;
    switch (agreementWith(charge, step, result.outcome, now.state)) {
    case Agreement::SameApproval:
        return operation.finish(PaymentOutcome::ofCharge(Kind::Charge, now), now.publicId);
    case Agreement::SameFailure: {
        const bool declined = result.outcome == ChannelOutcome::Declined;
        PaymentOutcome failed = PaymentOutcome::ofCharge(
            declined ? Kind::CardDeclined : Kind::AuthorizationFailed, now);
        if (declined)
            failed.declineCode = result.declineCode;
        return operation.finish(failed, now.publicId);
    }
    case Agreement::Differs:
        break;
    }
    return PaymentOutcome::failure(moved);
}

MerchantNotice ChargeService::notice(const ChargeRecord &charge) const
{
    return {charge.merchantId, charge.publicId, m_replies.renderCharge(charge)};
}

Status ChargeService::postCapture(ChargeRecord &charge, const QString &eventType)
{
    if (Status captured = PaymentRepository(m_connection).addCaptured(charge, charge.amount);
        !captured)
        return captured;
    if (Status posted = Ledger(m_connection)
                            .postCapture({.chargeId = charge.id,
                                          .merchantId = charge.merchantId,
                                          .currency = charge.currency,
                                          .amount = charge.amount});
        !posted)
        return posted;
    if (Status queued = Outbox(m_connection)
                            .enqueue(QStringLiteral("charge"), charge.publicId, eventType,
                                     eventPayload(charge), notice(charge));
        !queued)
        return queued;
    Metrics::instance().countPosting(Metrics::Posting::Capture);
    Metrics::instance().countVolume(Metrics::Posting::Capture, charge.currency, charge.amount);
    return {};
}

Result<PaymentOutcome> ChargeService::applyAuthorization(ChargeRecord &charge,
                                                         const ChannelResult &result)
{
    PaymentRepository repository(m_connection);
    const PaymentState before = charge.state;
    const QString upstream =
        m_context.channel->name() + QStringLiteral(":authorize:") + charge.publicId;
    if (result.outcome == ChannelOutcome::Unknown) {
        // The answer was lost: the payment stays in flight until the
        // reconciler, or a retry of this key, asks the channel what happened.
        return PaymentOutcome::ofCharge(Kind::Charge, charge);
    }
    if (result.outcome == ChannelOutcome::Approved) {
        const QStringList steps =
            charge.capture ? QStringList{QStringLiteral("auth_ok"), QStringLiteral("capture"),
                                         QStringLiteral("capture_ok")}
                           : QStringList{QStringLiteral("auth_ok")};
        if (Status moved = repository.transition(charge, steps, {}, upstream); !moved)
            return moved.error();
        const Status posted = charge.capture
                                  ? postCapture(charge, QStringLiteral("charge.succeeded"))
                                  : Outbox(m_connection)
                                        .enqueue(QStringLiteral("charge"), charge.publicId,
                                                 QStringLiteral("charge.authorized"),
                                                 eventPayload(charge), notice(charge));
        if (!posted)
            return posted.error();
        paymentMetrics::countSteps(before, steps);
        return PaymentOutcome::ofCharge(Kind::Charge, charge);
    }
    const bool declined = result.outcome == ChannelOutcome::Declined;
    const QString code =
        declined ? QStringLiteral("card_declined") : QStringLiteral("processing_error");
    const QString message = declined ? QStringLiteral("Your card was declined.")
                                     : QStringLiteral("The card network could not process this "
                                                      "charge; try again with a new charge.");
    const QString declineCode = declined ? result.declineCode : QString();
    if (Status moved = repository.transition(charge, {QStringLiteral("auth_fail")},
                                             failurePayload(code, message, declineCode), upstream);
        !moved)
        return moved.error();
    if (Status queued =
            Outbox(m_connection)
                .enqueue(QStringLiteral("charge"), charge.publicId, QStringLiteral("charge.failed"),
                         eventPayload(charge), notice(charge));
        !queued)
        return queued.error();
    paymentMetrics::countSteps(before, {QStringLiteral("auth_fail")});
    PaymentOutcome failed =
        PaymentOutcome::ofCharge(declined ? Kind::CardDeclined : Kind::AuthorizationFailed, charge);
    failed.declineCode = declineCode;
    return failed;
}

PaymentOutcome ChargeService::retrieve(const Merchant &merchant, const QString &chargeId)
{
    const auto found =
        foundOr(PaymentRepository(m_connection).findByPublicId(merchant.id, chargeId),
                Kind::ChargeNotFound, chargeId);
    if (const auto *answer = std::get_if<PaymentOutcome>(&found))
        return *answer;
    return PaymentOutcome::ofCharge(Kind::Charge, std::get<ChargeRecord>(found));
}

PaymentOutcome ChargeService::capture(const Merchant &merchant, const QString &chargeId,
                                      const std::optional<IdempotencyKey> &key)
{
    IdempotentOperation operation(m_context, m_connection, m_replies,
                                  key ? key->scopedHash(merchant.id) : QByteArray());
    return startCapture(operation, merchant, chargeId);
}

PaymentOutcome ChargeService::startCapture(IdempotentOperation &operation, const Merchant &merchant,
                                           const QString &chargeId)
{
    PgTransaction tx(m_connection);
    if (!tx.begun())
        return PaymentOutcome::failure(tx.begun().error());
    if (operation.keyed()) {
        const QByteArray fingerprint = Fingerprint(QString::fromLatin1(CaptureEndpoint))
                                           .add(QStringLiteral("charge"), chargeId)
                                           .hash();
        Result<bool> reserved = operation.reserve(merchant.id, QString::fromLatin1(CaptureEndpoint),
                                                  fingerprint, chargeId);
        if (reserved && !*reserved)
            (void)tx.rollback(); // a takeover must not be undone with the reservation
        const IdempotentOperation::Admitted admitted = operation.admit(reserved, fingerprint);
        if (admitted.how == IdempotentOperation::Admission::Answered)
            return admitted.answer;
        if (admitted.how == IdempotentOperation::Admission::Retry)
            return PaymentOutcome::failure(
                codedError(ErrorKind::Failed, QString::fromLatin1(ErrorCode::RowsMoved),
                           QStringLiteral("the Idempotency-Key expired meanwhile")));
        if (admitted.how == IdempotentOperation::Admission::TookOver)
            return resumeCapture(operation, merchant, chargeId);
    }
    PaymentRepository repository(m_connection);
    const auto found =
        foundOr(repository.findByPublicId(merchant.id, chargeId), Kind::ChargeNotFound, chargeId);
    if (const auto *answer = std::get_if<PaymentOutcome>(&found))
        return *answer;
    ChargeRecord charge = std::get<ChargeRecord>(found);
    if (charge.state != PaymentState::Authorized)
        return operation.finish(tx, PaymentOutcome::ofCharge(Kind::ChargeNotCapturable, charge),
                                charge.publicId);
    if (Status moved = repository.transition(charge, {QStringLiteral("capture")}, {}); !moved)
        return PaymentOutcome::failure(moved.error());
    if (Status committed = tx.commit(); !committed)
        return PaymentOutcome::failure(committed.error());
    paymentMetrics::countSteps(PaymentState::Authorized, {QStringLiteral("capture")});
    chaosPoint("capture_started");
    return callAndSettle(operation, charge, ChargeStep::Capture, EarlierAttempt::None);
}

PaymentOutcome ChargeService::resumeCapture(IdempotentOperation &operation,
                                            const Merchant &merchant, const QString &chargeId)
{
    const auto found =
        foundOr(PaymentRepository(m_connection).findByPublicId(merchant.id, chargeId),
                Kind::ChargeNotFound, chargeId);
    if (const auto *answer = std::get_if<PaymentOutcome>(&found))
        return *answer;
    ChargeRecord charge = std::get<ChargeRecord>(found);
    if (charge.state == PaymentState::Capturing)
        return callAndSettle(operation, charge, ChargeStep::Capture, EarlierAttempt::Possible);
    return operation.finish(PaymentOutcome::ofCharge(Kind::Charge, charge), charge.publicId);
}

Result<PaymentOutcome> ChargeService::applyCapture(ChargeRecord &charge,
                                                   const ChannelResult &result)
{
    PaymentRepository repository(m_connection);
    if (result.outcome == ChannelOutcome::Unknown)
        return PaymentOutcome::ofCharge(Kind::Charge, charge);
    if (result.outcome != ChannelOutcome::Approved) {
        // The capture did not happen; the authorization stands and may be captured again.
        if (Status moved = repository.transition(charge, {QStringLiteral("capture_retry")}, {});
            !moved)
            return moved.error();
        paymentMetrics::countSteps(PaymentState::Capturing, {QStringLiteral("capture_retry")});
        return PaymentOutcome::ofCharge(Kind::CaptureNotProcessed, charge);
    }
    const QString upstream =
        m_context.channel->name() + QStringLiteral(":capture:") + charge.publicId;
    if (Status moved = repository.transition(charge, {QStringLiteral("capture_ok")}, {}, upstream);
        !moved)
        return moved.error();
    if (Status posted = postCapture(charge, QStringLiteral("charge.captured")); !posted)
        return posted.error();
    paymentMetrics::countSteps(PaymentState::Capturing, {QStringLiteral("capture_ok")});
    return PaymentOutcome::ofCharge(Kind::Charge, charge);
}

PaymentOutcome ChargeService::resolveInFlight(ChargeRecord &charge)
{
    const bool capturing = charge.state == PaymentState::Capturing;
    if (charge.state != PaymentState::Authorizing && !capturing)
        return PaymentOutcome::ofCharge(Kind::Charge, charge);
    const QString operationName =
        capturing ? QStringLiteral("capture") : QStringLiteral("authorize");
    const ChannelRequest asked = channelRequest(charge, operationName);
    Result<ChannelResult> result = askChannel(*m_context.channel, asked);
    if (!result)
        return PaymentOutcome::failure(result.error());
    if (result->outcome == ChannelOutcome::NotFound && !capturing)
        *result = closeUnprocessed(*m_context.channel, asked,
                                   QStringLiteral("authorization never reached the network"));
    return settleInFlight(charge, *result);
}

PaymentOutcome ChargeService::recheckRefusedCapture(ChargeRecord &charge)
{
    if (charge.state != PaymentState::Authorized)
        return PaymentOutcome::ofCharge(Kind::Charge, charge);
    Result<ChannelResult> known =
        askChannel(*m_context.channel, channelRequest(charge, QStringLiteral("capture")));
    if (!known)
        return PaymentOutcome::failure(known.error());
    if (known->outcome != ChannelOutcome::Approved)
        return PaymentOutcome::ofCharge(Kind::Charge, charge);
    if (Status prepared = Ledger(m_connection).prepareAccounts(charge.merchantId, charge.currency);
        !prepared)
        return PaymentOutcome::failure(prepared.error());
    PgTransaction tx(m_connection, PgTransaction::Pipelined);
    const QStringList steps{QStringLiteral("capture"), QStringLiteral("capture_ok")};
    if (Status moved = PaymentRepository(m_connection)
                           .transition(charge, steps, {},
                                       m_context.channel->name() + QStringLiteral(":capture:") +
                                           charge.publicId);
        !moved)
        return PaymentOutcome::failure(moved.error());
    if (Status posted = postCapture(charge, QStringLiteral("charge.captured")); !posted)
        return PaymentOutcome::failure(posted.error());
    if (Status kept =
            PaymentRepository(m_connection).keepChannelReference(charge, known->channelReference);
        !kept)
        return PaymentOutcome::failure(kept.error());
    IdempotentOperation unkeyed(m_context, m_connection, m_replies, {});
    const PaymentOutcome captured =
        unkeyed.finish(tx, PaymentOutcome::ofCharge(Kind::Charge, charge), charge.publicId);
    if (captured.final())
        paymentMetrics::countSteps(PaymentState::Authorized, steps);
    return captured;
}

PaymentOutcome ChargeService::settleInFlight(ChargeRecord &charge, const ChannelResult &result)
{
    const bool capturing = charge.state == PaymentState::Capturing;
    if (charge.state != PaymentState::Authorizing && !capturing)
        return PaymentOutcome::ofCharge(Kind::Charge, charge);
    IdempotentOperation unkeyed(m_context, m_connection, m_replies, {});
    return settle(unkeyed, charge, result, capturing ? ChargeStep::Capture : ChargeStep::Authorize);
}

} // namespace keel
