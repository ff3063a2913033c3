#pragma once

#include "core/Result.h"

#include <QByteArray>
#include <QByteArrayList>
#include <QList>
#include <QString>

#include <optional>
#include <utility>

namespace keel {

class PgRows;
class LibpqConnection;

// A response as it was first sent: replayed byte for byte.
struct StoredResponse {
    int status = 200;
    QList<std::pair<QByteArray, QByteArray>> headers; // whitelisted only
    QByteArray body;
};

struct IdempotencyRecord {
    QByteArray requestHash;
    bool processing = true;
    std::optional<StoredResponse> response;
    int expectedDurationMs = 0;
    qint64 lockAgeMs = 0; // how long the current holder has held it
};

struct IdempotencyPolicy {
    int ttlSeconds = 24 * 3600; // keys expire after this (up to 7 days)
    int lockTimeoutMs = 30000;  // a holder silent this long is presumed dead
};

// The Idempotency-Key table. Reserve and complete run inside the caller's
// transactions (the gateway reserves together with the order's first write,
// and completes together with its final state), everything else on its own.
class IdempotencyStore final {
public:
    IdempotencyStore(LibpqConnection &session, IdempotencyPolicy policy, QString owner);

    // Inserts a processing record, or replaces one whose TTL has passed.
    // False if a live record exists (read it with find()). `resourceId` names
    // the payment the request works on, so a reconciler that settles the
    // payment can also answer a key whose holder died.
    Result<bool> reserve(const QByteArray &keyHash, qint64 merchantId, const QString &endpoint,
                         const QByteArray &requestHash, int expectedDurationMs,
                         const QString &resourceId = {});
    // The same reservation as the CTE "reserved" (one row if it succeeded),
    // followed by `dependentCtes` (which may read "reserved", may use
    // `resourceId` as $8, and parameters from $9 on) and `finalSelect`: one
    // atomic statement, so the first business write costs no extra round trip.
    Result<PgRows> reserveWith(const QByteArray &keyHash, qint64 merchantId,
                               const QString &endpoint, const QByteArray &requestHash,
                               int expectedDurationMs, const QString &resourceId,
                               const QByteArray &dependentCtes, const QByteArray &finalSelect,
                               const QByteArrayList &moreParams);
    Result<std::optional<IdempotencyRecord>> find(const QByteArray &keyHash);
    // Claims a processing record whose holder went silent past the lock timeout.
    Result<bool> takeOver(const QByteArray &keyHash);
    // Stores the final response; aborts the transaction if this process no
    // longer holds the key (someone took it over).
    Status complete(const QByteArray &keyHash, const StoredResponse &response,
                    const QString &resourceId = {});
    // Keys still processing for `resourceId` whose holder has been silent
    // past the lock timeout.
    Result<QList<QByteArray>> silentHolders(const QString &resourceId);
    // Deletes up to `batch` expired records; returns how many.
    Result<int> sweepExpired(int batch);

    // Retry-After for a request that found the key in flight, in seconds.
    static int retryAfterSeconds(const IdempotencyRecord &record);

    const IdempotencyPolicy &policy() const { return m_policy; }

private:
    LibpqConnection &m_session;
    IdempotencyPolicy m_policy;
    QString m_owner;
};

} // namespace keel
