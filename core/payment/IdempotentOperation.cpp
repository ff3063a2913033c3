#include "core/payment/IdempotentOperation.h"

#include "core/db/PgTransaction.h"
#include "core/idempotency/IdempotencyGate.h"
#include "core/metrics/Metrics.h"
#include "core/payment/PaymentContext.h"
#include "core/payment/ReplyRenderer.h"

namespace keel {

IdempotentOperation::IdempotentOperation(const PaymentContext &context, LibpqConnection &connection,
                                         const ReplyRenderer &replies, QByteArray keyHash)
    : m_connection(connection), m_replies(replies), m_keyHash(std::move(keyHash)),
      m_store(connection, context.idempotency, context.instance),
      m_expectedDurationMs(context.expectedDurationMs)
{}

Result<bool> IdempotentOperation::reserve(qint64 merchantId, const QString &endpoint,
                                          const QByteArray &fingerprint, const QString &resourceId)
{
    return m_store.reserve(m_keyHash, merchantId, endpoint, fingerprint, m_expectedDurationMs,
                           resourceId);
}

IdempotentOperation::Admitted IdempotentOperation::admit(const Result<bool> &reserved,
                                                         const QByteArray &fingerprint)
{
    Metrics &metrics = Metrics::instance();
    if (!reserved)
        return {Admission::Answered, PaymentOutcome::failure(reserved.error())};
    if (*reserved) {
        metrics.countIdempotency(Metrics::Idempotency::New);
        return {Admission::New, {}};
    }
    Result<GateVerdict> verdict = inspectTakenKey(m_store, m_keyHash, fingerprint);
    if (!verdict)
        return {Admission::Answered, PaymentOutcome::failure(verdict.error())};
    switch (verdict->kind) {
    case GateVerdict::Vanished:
        return {Admission::Retry, {}};
    case GateVerdict::Resume:
        metrics.countIdempotency(Metrics::Idempotency::Recovered);
        return {Admission::TookOver, {}};
    case GateVerdict::Replay: {
        metrics.countIdempotency(Metrics::Idempotency::Replayed);
        PaymentOutcome replay = PaymentOutcome::of(PaymentOutcome::Kind::Replayed);
        replay.stored = verdict->response;
        return {Admission::Answered, replay};
    }
    case GateVerdict::Mismatch:
        metrics.countIdempotency(Metrics::Idempotency::Mismatch);
        return {Admission::Answered,
                PaymentOutcome::of(PaymentOutcome::Kind::KeyReusedDifferently)};
    case GateVerdict::InFlight:
        break;
    }
    metrics.countIdempotency(Metrics::Idempotency::InFlight);
    PaymentOutcome inFlight = PaymentOutcome::of(PaymentOutcome::Kind::KeyInFlight);
    inFlight.retryAfterSeconds = verdict->retryAfterSeconds;
    return {Admission::Answered, inFlight};
}

Status IdempotentOperation::keep(const PaymentOutcome &outcome, const QString &resourceId)
{
    if (!keyed())
        return {};
    return m_store.complete(m_keyHash, m_replies.render(outcome), resourceId);
}

PaymentOutcome IdempotentOperation::finish(PgTransaction &tx, PaymentOutcome outcome,
                                           const QString &resourceId)
{
    if (Status kept = keep(outcome, resourceId); !kept)
        return PaymentOutcome::failure(kept.error());
    if (Status committed = tx.commit(); !committed)
        return PaymentOutcome::failure(committed.error());
    return outcome;
}

PaymentOutcome IdempotentOperation::finish(PaymentOutcome outcome, const QString &resourceId)
{
    PgTransaction tx(m_connection, PgTransaction::Pipelined);
    return finish(tx, std::move(outcome), resourceId);
}

Result<int> IdempotentOperation::answerSilentHolders(const QString &paymentId,
                                                     const PaymentOutcome &outcome,
                                                     const QString &resourceId)
{
    if (!outcome.final())
        return 0;
    Result<QList<QByteArray>> silent = m_store.silentHolders(paymentId);
    if (!silent)
        return silent.error();
    int answered = 0;
    for (const QByteArray &keyHash : std::as_const(*silent)) {
        // Taking the key over first makes this the only process completing it.
        Result<bool> taken = m_store.takeOver(keyHash);
        if (!taken)
            return taken.error();
        if (!*taken)
            continue;
        PgTransaction tx(m_connection, PgTransaction::Pipelined);
        if (Status kept = m_store.complete(keyHash, m_replies.render(outcome), resourceId); !kept)
            return kept.error();
        if (Status committed = tx.commit(); !committed)
            return committed.error();
        Metrics::instance().countIdempotency(Metrics::Idempotency::Recovered);
        ++answered;
    }
    return answered;
}

} // namespace keel
