#include "core/payment/RefundService.h"

#include "core/db/PgSession.h"
#include "core/db/PgTransaction.h"
#include "core/http/JsonWriter.h"
#include "core/http/RequestParams.h"
#include "core/idempotency/Fingerprint.h"
#include "core/idempotency/IdempotencyGate.h"
#include "core/idempotency/IdempotencyKey.h"
#include "core/ledger/Ledger.h"
#include "core/metrics/Metrics.h"
#include "core/outbox/Outbox.h"
#include "core/payment/Channel.h"
#include "core/payment/ChargeRecord.h"
#include "core/payment/ChargeRequest.h"
#include "core/payment/PaymentRepository.h"
#include "core/payment/RefundRecord.h"
#include "core/payment/ServiceFailure.h"

namespace keel {
namespace {

constexpr char RefundsEndpoint[] = "POST /v1/refunds";

ApiResponse refundResponse(const RefundRecord &refund)
{
    return jsonResponse(200, refund.render());
}

ApiResponse problem(int status, const QString &code, const QString &param, const QString &message)
{
    ApiError error;
    error.status = status;
    error.code = code;
    error.param = param;
    error.message = message;
    error.shouldRetry = status == 409;
    error.retryAfterSeconds = status == 409 ? 1 : 0;
    return error.response();
}

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

} // namespace

RefundService::RefundService(const GatewayContext &context, PgSession &session)
    : m_context(context), m_session(session)
{}

ApiResponse RefundService::failure(const Error &error)
{
    return serviceFailure(error);
}

ApiResponse RefundService::create(const Merchant &merchant, const RequestParams &params,
                                  const std::optional<QByteArray> &idempotencyKey)
{
    Result<IdempotencyKey> key =
        IdempotencyKey::parse(idempotencyKey.value_or(QByteArray()), idempotencyKey.has_value());
    if (!key)
        return invalidRequest(key.error()).response();
    if (Status known = validate::knownParameters(
            params, {QStringLiteral("charge"), QStringLiteral("amount"), QStringLiteral("reason"),
                     QStringLiteral("metadata["), QStringLiteral("out_refund_no")});
        !known)
        return invalidRequest(known.error()).response();
    const QString chargeId = params.valueOr(QStringLiteral("charge"));
    if (chargeId.isEmpty())
        return problem(
            400, QStringLiteral("parameter_missing"), QStringLiteral("charge"),
            QStringLiteral("charge is required: the id (ch_...) of the charge to refund"));
    const QString reason = params.valueOr(QStringLiteral("reason"));
    if (!reason.isEmpty() && reason != QLatin1String("duplicate") &&
        reason != QLatin1String("fraudulent") && reason != QLatin1String("requested_by_customer"))
        return problem(
            400, QStringLiteral("parameter_invalid"), QStringLiteral("reason"),
            QStringLiteral("reason must be duplicate, fraudulent or requested_by_customer"));
    Result<QList<std::pair<QString, QString>>> metadata = validate::metadata(params);
    if (!metadata)
        return invalidRequest(metadata.error()).response();
    Result<std::optional<QString>> outRefundNo =
        validate::reference(params, QStringLiteral("out_refund_no"));
    if (!outRefundNo)
        return invalidRequest(outRefundNo.error()).response();

    PaymentRepository repository(m_session);
    Result<std::optional<ChargeRecord>> found = repository.findByPublicId(merchant.id, chargeId);
    if (!found)
        return failure(found.error());
    if (!found->has_value())
        return problem(404, QStringLiteral("resource_missing"), QStringLiteral("charge"),
                       QStringLiteral("no such charge: %1").arg(chargeId));
    ChargeRecord charge = **found;
    const std::optional<Currency> currency = m_context.currencies.find(charge.currency);
    const std::optional<QString> amountText = params.value(QStringLiteral("amount"));
    qint64 amount = charge.amountCaptured - charge.amountRefunded;
    if (amountText) {
        Result<qint64> parsed = parseMinorUnits(*amountText, *currency, 0);
        if (!parsed)
            return invalidRequest(parsed.error()).response();
        amount = *parsed;
    }

    const QByteArray keyHash = key->scopedHash(merchant.id);
    Fingerprint whole{QString::fromLatin1(RefundsEndpoint)};
    whole.add(QStringLiteral("charge"), chargeId)
        .add(QStringLiteral("amount"), amountText.value_or(QStringLiteral("(remaining)")))
        .add(QStringLiteral("reason"), reason);
    if (*outRefundNo)
        whole.add(QStringLiteral("out_refund_no"), **outRefundNo);
    for (const auto &[k, v] : std::as_const(*metadata))
        whole.add(QStringLiteral("metadata[%1]").arg(k), v);
    const QByteArray fingerprint = whole.hash();

    RefundRecord refund;
    refund.chargeId = charge.id;
    refund.chargePublicId = charge.publicId;
    refund.outRefundNo = outRefundNo->value_or(QStringLiteral("idem:") +
                                               QString::fromLatin1(keyHash.toHex().left(40)));
    refund.amount = amount;
    refund.currency = charge.currency;
    if (!reason.isEmpty())
        refund.reason = reason;
    JsonWriter meta;
    meta.beginObject();
    for (const auto &[k, v] : std::as_const(*metadata))
        meta.field(k, v);
    meta.endObject();
    refund.metadataJson = meta.take();
    refund.terms = Fingerprint(QStringLiteral("refund-terms"))
                       .add(QStringLiteral("amount"), amount)
                       .add(QStringLiteral("charge"), chargeId)
                       .hash();

    IdempotencyStore store(m_session, m_context.idempotency, m_context.instance);
    {
        PgTransaction tx(m_session);
        if (!tx.begun())
            return failure(tx.begun().error());
        Result<bool> reserved =
            store.reserve(keyHash, merchant.id, QString::fromLatin1(RefundsEndpoint), fingerprint,
                          m_context.expectedDurationMs);
        if (!reserved)
            return failure(reserved.error());
        if (!*reserved) {
            (void)tx.rollback();
            Result<GateVerdict> verdict = inspectTakenKey(store, keyHash, fingerprint);
            if (!verdict)
                return failure(verdict.error());
            if (verdict->kind == GateVerdict::Resume) {
                Metrics::instance().countIdempotency(Metrics::Idempotency::Recovered);
                return resume(merchant, chargeId, refund.outRefundNo, keyHash);
            }
            if (verdict->kind == GateVerdict::Vanished)
                return problem(409, QStringLiteral("request_in_progress"), {},
                               QStringLiteral("the Idempotency-Key expired meanwhile; retry"));
            return verdictResponse(*verdict);
        }
        Metrics::instance().countIdempotency(Metrics::Idempotency::New);

        const auto storeAndCommit = [&](const ApiResponse &response) {
            if (Status done =
                    store.complete(keyHash, {response.status, response.headers, response.body});
                !done)
                return failure(done.error());
            if (Status committed = tx.commit(); !committed)
                return failure(committed.error());
            return response;
        };

        // Business uniqueness first: a known out_refund_no answers with its refund.
        Result<std::optional<RefundRecord>> existing =
            RefundRecord::find(m_session, merchant.id, "r.charge_id = $2 AND r.out_refund_no = $3",
                               {QByteArray::number(charge.id), refund.outRefundNo.toUtf8()});
        if (!existing)
            return failure(existing.error());
        if (existing->has_value()) {
            if ((*existing)->terms == refund.terms)
                return storeAndCommit(refundResponse(**existing));
            return storeAndCommit(problem(
                400, QStringLiteral("out_refund_no_conflict"), QStringLiteral("out_refund_no"),
                QStringLiteral(
                    "out_refund_no %1 already belongs to refund %2 with a different amount")
                    .arg(refund.outRefundNo, (*existing)->publicId)));
        }
        if (charge.state == PaymentState::Refunding) {
            // Not stored: once the other refund finishes, this one may go through.
            return problem(
                409, QStringLiteral("refund_in_progress"), QStringLiteral("charge"),
                QStringLiteral("charge %1 has a refund in progress; retry shortly").arg(chargeId));
        }
        if (charge.state != PaymentState::Captured)
            return storeAndCommit(
                problem(400, QStringLiteral("charge_not_refundable"), QStringLiteral("charge"),
                        QStringLiteral("charge %1 is %2; only captured charges can be refunded")
                            .arg(chargeId, stateName(charge.state))));
        const qint64 refundable = charge.amountCaptured - charge.amountRefunded;
        if (amount > refundable)
            return storeAndCommit(
                problem(400, QStringLiteral("amount_too_large"), QStringLiteral("amount"),
                        QStringLiteral("amount %1 exceeds the %2 still refundable on charge %3")
                            .arg(amount)
                            .arg(refundable)
                            .arg(chargeId)));
        Result<std::optional<RefundRecord>> inserted = refund.insert(m_session);
        if (!inserted)
            return failure(inserted.error());
        if (!inserted->has_value()) // a concurrent request just took this out_refund_no
            return problem(
                409, QStringLiteral("request_in_progress"), QStringLiteral("out_refund_no"),
                QStringLiteral("another request is creating this refund; retry shortly"));
        if (Status moved = repository.transition(charge, {QStringLiteral("refund")}, {}); !moved)
            return failure(moved.error());
        if (Status committed = tx.commit(); !committed)
            return failure(committed.error());
        Metrics::instance().countTransition(PaymentState::Captured, PaymentState::Refunding);
    }
    return execute(refund, charge, keyHash, false);
}

ApiResponse RefundService::resume(const Merchant &merchant, const QString &chargeId,
                                  const QString &outRefundNo, const QByteArray &keyHash)
{
    Result<std::optional<ChargeRecord>> charge =
        PaymentRepository(m_session).findByPublicId(merchant.id, chargeId);
    Result<std::optional<RefundRecord>> refund =
        RefundRecord::find(m_session, merchant.id, "c.public_id = $2 AND r.out_refund_no = $3",
                           {chargeId.toUtf8(), outRefundNo.toUtf8()});
    if (!charge || !refund)
        return failure(!charge ? charge.error() : refund.error());
    if (!charge->has_value() || !refund->has_value())
        return failure(makeError(ErrorKind::Failed, QStringLiteral("taken-over refund vanished")));
    if ((*refund)->status == QLatin1String("pending") &&
        (*charge)->state == PaymentState::Refunding)
        return execute(**refund, **charge, keyHash, true);
    IdempotencyStore store(m_session, m_context.idempotency, m_context.instance);
    PgTransaction tx(m_session, PgTransaction::Pipelined);
    const ApiResponse response = refundResponse(**refund);
    if (Status done = store.complete(keyHash, {response.status, response.headers, response.body},
                                     (*refund)->publicId);
        !done)
        return failure(done.error());
    if (Status committed = tx.commit(); !committed)
        return failure(committed.error());
    return response;
}

ApiResponse RefundService::execute(RefundRecord &refund, ChargeRecord &charge,
                                   const QByteArray &keyHash, bool askFirst)
{
    ChannelResult result;
    if (askFirst)
        result = m_context.channel->query(refund.publicId, QStringLiteral("refund"));
    if (!askFirst || result.outcome == ChannelOutcome::NotFound)
        result = m_context.channel->execute({refund.publicId, QStringLiteral("refund"),
                                             refund.amount, refund.currency, charge.source, true});

    if (result.outcome == ChannelOutcome::Approved)
        if (Status prepared = Ledger(m_session).prepareAccounts(charge.merchantId, charge.currency);
            !prepared)
            return failure(prepared.error());
    PgTransaction tx(m_session, PgTransaction::Pipelined);
    PaymentRepository repository(m_session);
    if (result.outcome == ChannelOutcome::Approved) {
        const bool full = charge.amountRefunded + refund.amount >= charge.amountCaptured;
        const QString event =
            full ? QStringLiteral("refund_ok") : QStringLiteral("refund_partial_ok");
        const PaymentState before = charge.state;
        if (Status moved = repository.transition(charge, {event}, {},
                                                 m_context.channel->name() +
                                                     QStringLiteral(":refund:") + refund.publicId);
            !moved)
            return failure(moved.error());
        if (Status status = refund.setStatus(m_session, QStringLiteral("succeeded")); !status)
            return failure(status.error());
        if (Status added = repository.addRefunded(charge, refund.amount); !added)
            return failure(added.error());
        if (Status posted = Ledger(m_session).postRefund(charge.id, refund.id, charge.merchantId,
                                                         charge.currency, refund.amount);
            !posted)
            return failure(posted.error());
        if (Status queued =
                Outbox(m_session).enqueue(QStringLiteral("refund"), refund.publicId,
                                          QStringLiteral("refund.succeeded"), refundEvent(refund));
            !queued)
            return failure(queued.error());
        Metrics::instance().countTransition(before, charge.state);
        Metrics::instance().countPosting(Metrics::Posting::Refund);
        Metrics::instance().countVolume(Metrics::Posting::Refund, refund.currency, refund.amount);
    } else if (result.outcome != ChannelOutcome::Unknown) {
        if (Status moved = repository.transition(charge, {QStringLiteral("refund_fail")}, {});
            !moved)
            return failure(moved.error());
        if (Status status = refund.setStatus(m_session, QStringLiteral("failed")); !status)
            return failure(status.error());
        if (Status queued =
                Outbox(m_session).enqueue(QStringLiteral("refund"), refund.publicId,
                                          QStringLiteral("refund.failed"), refundEvent(refund));
            !queued)
            return failure(queued.error());
        Metrics::instance().countTransition(PaymentState::Refunding, PaymentState::Captured);
    }
    const ApiResponse response = refundResponse(refund);
    if (!keyHash.isEmpty()) {
        IdempotencyStore store(m_session, m_context.idempotency, m_context.instance);
        if (Status done = store.complete(
                keyHash, {response.status, response.headers, response.body}, refund.publicId);
            !done)
            return failure(done.error());
    }
    if (Status committed = tx.commit(); !committed)
        return failure(committed.error());
    return response;
}

Status RefundService::resolveInFlight(qint64 merchantId, const QString &refundId)
{
    Result<std::optional<RefundRecord>> refund =
        RefundRecord::find(m_session, merchantId, "r.public_id = $2", {refundId.toUtf8()});
    if (!refund || !refund->has_value())
        return refund ? makeError(ErrorKind::Failed, QStringLiteral("refund vanished"))
                      : refund.error();
    Result<std::optional<ChargeRecord>> charge =
        PaymentRepository(m_session).findByPublicId(merchantId, (*refund)->chargePublicId);
    if (!charge || !charge->has_value())
        return charge ? makeError(ErrorKind::Failed, QStringLiteral("charge vanished"))
                      : charge.error();
    if ((*refund)->status != QLatin1String("pending") ||
        (*charge)->state != PaymentState::Refunding)
        return {};
    const ApiResponse response = execute(**refund, **charge, {}, true);
    if (response.status >= 500 || response.status == 409)
        return makeError(ErrorKind::Failed, QStringLiteral("refund %1 not settled").arg(refundId));
    return {};
}

ApiResponse RefundService::retrieve(const Merchant &merchant, const QString &refundId)
{
    Result<std::optional<RefundRecord>> found =
        RefundRecord::find(m_session, merchant.id, "r.public_id = $2", {refundId.toUtf8()});
    if (!found)
        return failure(found.error());
    if (!found->has_value())
        return problem(404, QStringLiteral("resource_missing"), QStringLiteral("id"),
                       QStringLiteral("no such refund: %1").arg(refundId));
    return refundResponse(**found);
}

} // namespace keel
