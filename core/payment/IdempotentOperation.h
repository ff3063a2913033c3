#pragma once

#include "core/Result.h"
#include "core/idempotency/IdempotencyStore.h"
#include "core/payment/PaymentOutcome.h"

#include <QByteArray>
#include <QString>

namespace keel {

class LibpqConnection;
class PgTransaction;
class ReplyRenderer;
struct PaymentContext;

// The parts every keyed payment operation shares: reserve the key, deal with a
// request that finds it taken, and complete it with the reply of the outcome
// in the transaction that commits the outcome. Without a key (an unkeyed
// capture, the reconciler) the same calls just commit.
class IdempotentOperation final {
public:
    IdempotentOperation(const PaymentContext &context, LibpqConnection &connection,
                        const ReplyRenderer &replies, QByteArray keyHash);

    bool keyed() const { return !m_keyHash.isEmpty(); }
    const QByteArray &keyHash() const { return m_keyHash; }
    IdempotencyStore &store() { return m_store; }

    // Reserves the key in the caller's open transaction; false if taken.
    // `resourceId` is the payment the request works on (see IdempotencyStore).
    Result<bool> reserve(qint64 merchantId, const QString &endpoint, const QByteArray &fingerprint,
                         const QString &resourceId);

    // What this request does after trying to reserve its key.
    enum class Admission {
        New,      // it holds the key: do the work
        TookOver, // the holder went silent and this request took over: settle what it left
        Retry,    // the key expired between the two looks: reserve again
        Answered, // `answer` says it all (replay, reuse with other terms, in flight, failure)
    };
    struct Admitted {
        Admission how = Admission::Answered;
        PaymentOutcome answer;
    };
    Admitted admit(const Result<bool> &reserved, const QByteArray &fingerprint);

    // Stores the outcome's reply inside the caller's open transaction.
    Status keep(const PaymentOutcome &outcome, const QString &resourceId = {});
    // Stores the reply and commits `tx`: the outcome, or the failure if that failed.
    PaymentOutcome finish(PgTransaction &tx, PaymentOutcome outcome,
                          const QString &resourceId = {});
    // The same, in a one-round-trip transaction of its own.
    PaymentOutcome finish(PaymentOutcome outcome, const QString &resourceId = {});

    // After a payment was settled without its client (the reconciler): gives
    // every key still waiting on `paymentId` whose holder died the reply of
    // `outcome`, so a client that never retries finds its answer stored too.
    // Returns how many keys were answered.
    Result<int> answerSilentHolders(const QString &paymentId, const PaymentOutcome &outcome,
                                    const QString &resourceId);

private:
    LibpqConnection &m_connection;
    const ReplyRenderer &m_replies;
    QByteArray m_keyHash;
    IdempotencyStore m_store;
    int m_expectedDurationMs;
};

} // namespace keel
