#include "core/payment/ChargeService.h"

#include "core/Chaos.h"
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
#include "core/payment/ChargeRequest.h"
#include "core/payment/ChargeView.h"
#include "core/payment/PaymentRepository.h"
#include "core/payment/ServiceFailure.h"

namespace keel {
namespace {

constexpr char ChargesEndpoint[] = "POST /v1/charges";

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

void countSteps(PaymentState from, const QStringList &events)
{
    PaymentState state = from;
    for (const QString &event : events) {
        if (const std::optional<Transition> step = transitionFor(state, event)) {
            Metrics::instance().countTransition(step->from, step->to);
            state = step->to;
        }
    }
}

} // namespace

ChargeService::ChargeService(const GatewayContext &context, PgSession &session)
    : m_context(context), m_session(session)
{}

ApiResponse ChargeService::failure(const Error &error)
{
    return serviceFailure(error);
}

ApiResponse ChargeService::chargeResponse(const ChargeRecord &charge, int status)
{
    return jsonResponse(status, renderCharge(charge));
}

ApiResponse ChargeService::notFound(const QString &chargeId)
{
    ApiError api;
    api.status = 404;
    api.code = QStringLiteral("resource_missing");
    api.param = QStringLiteral("id");
    api.message = QStringLiteral("no such charge: %1").arg(chargeId);
    return api.response();
}

QString ChargeService::derivedOrderNumber(const QByteArray &keyHash)
{
    // Without an out_trade_no the key itself names the order, so a takeover
    // of the key finds the charge its first holder created.
    return QStringLiteral("idem:") + QString::fromLatin1(keyHash.toHex().left(40));
}

ApiResponse ChargeService::create(const Merchant &merchant, const RequestParams &params,
                                  const std::optional<QByteArray> &idempotencyKey)
{
    Result<IdempotencyKey> key =
        IdempotencyKey::parse(idempotencyKey.value_or(QByteArray()), idempotencyKey.has_value());
    if (!key)
        return invalidRequest(key.error()).response();
    Result<ChargeRequest> request =
        ChargeRequest::parse(params, m_context.currencies, merchant.maxChargeAmount);
    if (!request)
        return invalidRequest(request.error()).response();

    const QByteArray keyHash = key->scopedHash(merchant.id);
    const QString outTradeNo = request->outTradeNo.value_or(derivedOrderNumber(keyHash));
    IdempotencyStore store(m_session, m_context.idempotency, m_context.instance);

    PaymentRepository repository(m_session);
    for (int attempt = 0; attempt < 3; ++attempt) {
        // One statement: the key reserved and, only then, the order's first write.
        Result<PaymentRepository::Intake> intake = repository.reserveAndInsertCharge(
            store, keyHash, m_context.expectedDurationMs, merchant.id, *request, outTradeNo);
        if (!intake)
            return failure(intake.error());
        if (!intake->reserved) {
            Result<GateVerdict> verdict = inspectTakenKey(store, keyHash, request->fingerprint);
            if (!verdict)
                return failure(verdict.error());
            if (verdict->kind == GateVerdict::Vanished)
                continue;
            if (verdict->kind == GateVerdict::Resume) {
                Metrics::instance().countIdempotency(Metrics::Idempotency::Recovered);
                return resumeCreate(merchant, outTradeNo, keyHash);
            }
            return verdictResponse(*verdict);
        }
        Metrics::instance().countIdempotency(Metrics::Idempotency::New);
        if (!intake->charge) {
            // Business uniqueness behind the key: the same order number.
            Result<std::optional<ChargeRecord>> existing =
                repository.findByOrder(merchant.id, outTradeNo);
            if (!existing)
                return failure(existing.error());
            if (!existing->has_value())
                return failure(makeError(ErrorKind::Failed, QStringLiteral("order vanished")));
            if ((*existing)->terms == request->terms)
                return completeWith(keyHash, chargeResponse(**existing), (*existing)->publicId);
            ApiError conflict;
            conflict.status = 400;
            conflict.code = QStringLiteral("out_trade_no_conflict");
            conflict.param = QStringLiteral("out_trade_no");
            conflict.chargeId = (*existing)->publicId;
            conflict.message =
                QStringLiteral("out_trade_no %1 already belongs to charge %2 with "
                               "different terms (amount, currency, source or "
                               "capture); use a new order number or the original terms")
                    .arg(outTradeNo, (*existing)->publicId);
            return completeWith(keyHash, conflict.response());
        }
        Metrics::instance().countTransition(PaymentState::Created, PaymentState::Authorizing);
        chaosPoint("charge_reserved");
        return authorize(*intake->charge, keyHash, false);
    }
    return failure(makeError(ErrorKind::Failed, QStringLiteral("idempotency key kept expiring")));
}

ApiResponse ChargeService::resumeCreate(const Merchant &merchant, const QString &outTradeNo,
                                        const QByteArray &keyHash)
{
    PaymentRepository repository(m_session);
    Result<std::optional<ChargeRecord>> found = repository.findByOrder(merchant.id, outTradeNo);
    if (!found)
        return failure(found.error());
    if (!found->has_value())
        return failure(
            makeError(ErrorKind::Failed, QStringLiteral("taken-over key has no charge behind it")));
    ChargeRecord charge = **found;
    if (charge.state == PaymentState::Authorizing)
        return authorize(charge, keyHash, true);
    return completeWith(keyHash, chargeResponse(charge), charge.publicId);
}

ApiResponse ChargeService::completeWith(const QByteArray &keyHash, ApiResponse response,
                                        const QString &resourceId)
{
    IdempotencyStore store(m_session, m_context.idempotency, m_context.instance);
    PgTransaction tx(m_session, PgTransaction::Pipelined);
    if (Status done =
            store.complete(keyHash, {response.status, response.headers, response.body}, resourceId);
        !done)
        return failure(done.error());
    if (Status committed = tx.commit(); !committed)
        return failure(committed.error());
    return response;
}

ApiResponse ChargeService::authorize(ChargeRecord &charge, const QByteArray &keyHash, bool askFirst)
{
    ChannelResult result;
    if (askFirst) {
        // 补单: never guess what the network did with the first attempt.
        result = m_context.channel->query(charge.publicId, QStringLiteral("authorize"));
        if (result.outcome == ChannelOutcome::Unknown)
            return failure(makeError(ErrorKind::Failed, QStringLiteral("channel unreachable")));
    }
    if (!askFirst || result.outcome == ChannelOutcome::NotFound)
        result =
            m_context.channel->execute({charge.publicId, QStringLiteral("authorize"), charge.amount,
                                        charge.currency, charge.source, charge.capture});
    chaosPoint("charge_channel_answered");
    return finishAuthorization(charge, result, keyHash);
}

Result<ApiResponse> ChargeService::applyAuthorization(ChargeRecord &charge,
                                                      const ChannelResult &result)
{
    PaymentRepository repository(m_session);
    Outbox outbox(m_session);
    const PaymentState before = charge.state;
    const QString upstream =
        m_context.channel->name() + QStringLiteral(":authorize:") + charge.publicId;
    switch (result.outcome) {
    case ChannelOutcome::Approved: {
        const QStringList steps =
            charge.capture ? QStringList{QStringLiteral("auth_ok"), QStringLiteral("capture"),
                                         QStringLiteral("capture_ok")}
                           : QStringList{QStringLiteral("auth_ok")};
        if (Status moved = repository.transition(charge, steps, {}, upstream); !moved)
            return moved.error();
        if (charge.capture) {
            if (Status captured = repository.addCaptured(charge, charge.amount); !captured)
                return captured.error();
            if (Status posted = Ledger(m_session).postCapture(charge.id, charge.merchantId,
                                                              charge.currency, charge.amount);
                !posted)
                return posted.error();
        }
        if (Status queued = outbox.enqueue(QStringLiteral("charge"), charge.publicId,
                                           charge.capture ? QStringLiteral("charge.succeeded")
                                                          : QStringLiteral("charge.authorized"),
                                           eventPayload(charge));
            !queued)
            return queued.error();
        countSteps(before, steps);
        if (charge.capture)
            Metrics::instance().countPosting(Metrics::Posting::Capture);
        Metrics::instance().countVolume(Metrics::Posting::Capture, charge.currency, charge.amount);
        return chargeResponse(charge);
    }
    case ChannelOutcome::Declined:
    case ChannelOutcome::Failed:
    case ChannelOutcome::NotFound: {
        const bool declined = result.outcome == ChannelOutcome::Declined;
        const QString code =
            declined ? QStringLiteral("card_declined") : QStringLiteral("processing_error");
        const QString message = declined ? QStringLiteral("Your card was declined.")
                                         : QStringLiteral("The card network could not process this "
                                                          "charge; try again with a new charge.");
        if (Status moved = repository.transition(
                charge, {QStringLiteral("auth_fail")},
                failurePayload(code, message, declined ? result.declineCode : QString()), upstream);
            !moved)
            return moved.error();
        if (Status queued = outbox.enqueue(QStringLiteral("charge"), charge.publicId,
                                           QStringLiteral("charge.failed"), eventPayload(charge));
            !queued)
            return queued.error();
        countSteps(before, {QStringLiteral("auth_fail")});
        ApiError error;
        error.status = 402;
        error.type = QStringLiteral("card_error");
        error.code = code;
        error.message = message;
        error.declineCode = declined ? result.declineCode : QString();
        error.chargeId = charge.publicId;
        return error.response();
    }
    case ChannelOutcome::Unknown:
        break;
    }
    // The answer was lost: the payment stays in flight until the reconciler,
    // or a retry of this key, asks the channel what happened.
    return chargeResponse(charge);
}

ApiResponse ChargeService::finishAuthorization(ChargeRecord &charge, const ChannelResult &result,
                                               const QByteArray &keyHash)
{
    Result<ApiResponse> response = settle(charge, result, keyHash, false);
    return response ? *response : failure(response.error());
}

Result<ApiResponse> ChargeService::settle(ChargeRecord &charge, const ChannelResult &result,
                                          const QByteArray &keyHash, bool capturing)
{
    if (result.outcome == ChannelOutcome::Approved && (capturing || charge.capture))
        if (Status prepared = Ledger(m_session).prepareAccounts(charge.merchantId, charge.currency);
            !prepared)
            return prepared.error();
    // The outcome, its postings, the outbox event and the stored response:
    // one transaction, sent in one round trip.
    PgTransaction tx(m_session, PgTransaction::Pipelined);
    Result<ApiResponse> response =
        capturing ? applyCapture(charge, result) : applyAuthorization(charge, result);
    if (!response)
        return response.error();
    if (!keyHash.isEmpty()) {
        IdempotencyStore store(m_session, m_context.idempotency, m_context.instance);
        if (Status done = store.complete(
                keyHash, {response->status, response->headers, response->body}, charge.publicId);
            !done)
            return done.error();
    }
    if (Status committed = tx.commit(); !committed)
        return committed.error();
    return response;
}

ApiResponse ChargeService::retrieve(const Merchant &merchant, const QString &chargeId)
{
    Result<std::optional<ChargeRecord>> found =
        PaymentRepository(m_session).findByPublicId(merchant.id, chargeId);
    if (!found)
        return failure(found.error());
    if (!found->has_value())
        return notFound(chargeId);
    return chargeResponse(**found);
}

ApiResponse ChargeService::capture(const Merchant &merchant, const QString &chargeId,
                                   const RequestParams &params,
                                   const std::optional<QByteArray> &idempotencyKey)
{
    if (Status known = validate::knownParameters(params, {}); !known)
        return invalidRequest(known.error()).response();
    QByteArray keyHash;
    QByteArray fingerprint;
    if (idempotencyKey) {
        Result<IdempotencyKey> key = IdempotencyKey::parse(*idempotencyKey, true);
        if (!key)
            return invalidRequest(key.error()).response();
        keyHash = key->scopedHash(merchant.id);
        fingerprint = Fingerprint(QStringLiteral("POST /v1/charges/{id}/capture"))
                          .add(QStringLiteral("charge"), chargeId)
                          .hash();
    }
    IdempotencyStore store(m_session, m_context.idempotency, m_context.instance);
    PaymentRepository repository(m_session);
    ChargeRecord charge;
    {
        PgTransaction tx(m_session);
        if (!tx.begun())
            return failure(tx.begun().error());
        if (!keyHash.isEmpty()) {
            Result<bool> reserved =
                store.reserve(keyHash, merchant.id, QStringLiteral("POST /v1/charges/{id}/capture"),
                              fingerprint, m_context.expectedDurationMs);
            if (!reserved)
                return failure(reserved.error());
            if (!*reserved) {
                (void)tx.rollback();
                Result<GateVerdict> verdict = inspectTakenKey(store, keyHash, fingerprint);
                if (!verdict)
                    return failure(verdict.error());
                if (verdict->kind != GateVerdict::Resume)
                    return verdictResponse(*verdict);
                Metrics::instance().countIdempotency(Metrics::Idempotency::Recovered);
                Result<std::optional<ChargeRecord>> found =
                    repository.findByPublicId(merchant.id, chargeId);
                if (!found || !found->has_value())
                    return found ? notFound(chargeId) : failure(found.error());
                charge = **found;
                if (charge.state == PaymentState::Capturing)
                    return runCapture(charge, keyHash, true);
                return completeWith(keyHash, chargeResponse(charge), charge.publicId);
            }
            Metrics::instance().countIdempotency(Metrics::Idempotency::New);
        }
        Result<std::optional<ChargeRecord>> found =
            repository.findByPublicId(merchant.id, chargeId);
        if (!found)
            return failure(found.error());
        if (!found->has_value())
            return notFound(chargeId);
        charge = **found;
        if (charge.state != PaymentState::Authorized) {
            ApiError error;
            error.code = charge.state == PaymentState::Captured
                             ? QStringLiteral("charge_already_captured")
                             : QStringLiteral("charge_not_capturable");
            error.message = QStringLiteral("charge %1 is %2 and cannot be captured")
                                .arg(charge.publicId, stateName(charge.state));
            error.param = QStringLiteral("id");
            ApiResponse response = error.response();
            if (!keyHash.isEmpty()) {
                if (Status done =
                        store.complete(keyHash, {response.status, response.headers, response.body},
                                       charge.publicId);
                    !done)
                    return failure(done.error());
                if (Status committed = tx.commit(); !committed)
                    return failure(committed.error());
            }
            return response;
        }
        if (Status moved = repository.transition(charge, {QStringLiteral("capture")}, {}); !moved)
            return failure(moved.error());
        if (Status committed = tx.commit(); !committed)
            return failure(committed.error());
        countSteps(PaymentState::Authorized, {QStringLiteral("capture")});
    }
    return runCapture(charge, keyHash, false);
}

ApiResponse ChargeService::runCapture(ChargeRecord &charge, const QByteArray &keyHash,
                                      bool askFirst)
{
    ChannelResult result;
    if (askFirst) {
        result = m_context.channel->query(charge.publicId, QStringLiteral("capture"));
        if (result.outcome == ChannelOutcome::Unknown)
            return failure(makeError(ErrorKind::Failed, QStringLiteral("channel unreachable")));
    }
    if (!askFirst || result.outcome == ChannelOutcome::NotFound)
        result = m_context.channel->execute({charge.publicId, QStringLiteral("capture"),
                                             charge.amount, charge.currency, charge.source, true});
    return finishCapture(charge, result, keyHash);
}

Result<ApiResponse> ChargeService::applyCapture(ChargeRecord &charge, const ChannelResult &result)
{
    PaymentRepository repository(m_session);
    const QString upstream =
        m_context.channel->name() + QStringLiteral(":capture:") + charge.publicId;
    if (result.outcome == ChannelOutcome::Unknown)
        return chargeResponse(charge);
    if (result.outcome != ChannelOutcome::Approved) {
        // The capture did not happen; the authorization stands and may be captured again.
        if (Status moved = repository.transition(charge, {QStringLiteral("capture_retry")}, {});
            !moved)
            return moved.error();
        countSteps(PaymentState::Capturing, {QStringLiteral("capture_retry")});
        ApiError error;
        error.status = 402;
        error.type = QStringLiteral("card_error");
        error.code = QStringLiteral("processing_error");
        error.message =
            QStringLiteral("the capture was not processed; the charge stays authorized");
        error.chargeId = charge.publicId;
        error.shouldRetry = true;
        return error.response();
    }
    if (Status moved = repository.transition(charge, {QStringLiteral("capture_ok")}, {}, upstream);
        !moved)
        return moved.error();
    if (Status captured = repository.addCaptured(charge, charge.amount); !captured)
        return captured.error();
    if (Status posted = Ledger(m_session).postCapture(charge.id, charge.merchantId, charge.currency,
                                                      charge.amount);
        !posted)
        return posted.error();
    if (Status queued =
            Outbox(m_session).enqueue(QStringLiteral("charge"), charge.publicId,
                                      QStringLiteral("charge.captured"), eventPayload(charge));
        !queued)
        return queued.error();
    countSteps(PaymentState::Capturing, {QStringLiteral("capture_ok")});
    Metrics::instance().countPosting(Metrics::Posting::Capture);
    Metrics::instance().countVolume(Metrics::Posting::Capture, charge.currency, charge.amount);
    return chargeResponse(charge);
}

ApiResponse ChargeService::finishCapture(ChargeRecord &charge, const ChannelResult &result,
                                         const QByteArray &keyHash)
{
    Result<ApiResponse> response = settle(charge, result, keyHash, true);
    return response ? *response : failure(response.error());
}

Status ChargeService::resolveInFlight(ChargeRecord &charge)
{
    const bool capturing = charge.state == PaymentState::Capturing;
    if (charge.state != PaymentState::Authorizing && !capturing)
        return {};
    const QString operation = capturing ? QStringLiteral("capture") : QStringLiteral("authorize");
    ChannelResult result = m_context.channel->query(charge.publicId, operation);
    if (result.outcome == ChannelOutcome::Unknown)
        return makeError(ErrorKind::Failed, QStringLiteral("channel unreachable"));
    if (result.outcome == ChannelOutcome::NotFound && !capturing) {
        // The network never saw it: the authorization did not happen.
        result = {
            ChannelOutcome::Failed, {}, QStringLiteral("authorization never reached the network")};
    }
    Result<ApiResponse> settled = settle(charge, result, {}, capturing);
    if (!settled)
        return settled.error();
    return {};
}

} // namespace keel
