#pragma once

#include "core/Result.h"
#include "core/payment/ChargeRecord.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace keel {

class IdempotencyStore;
class LibpqConnection;
struct ChargeRequest;

// The SQL behind charges, their state and their events. Callers own the
// transaction; every state change is an optimistic UPDATE guarded by the
// expected state and version, with its events, in one statement.
class PaymentRepository final {
public:
    explicit PaymentRepository(LibpqConnection &session) : m_session(session) {}

    // Reserves the Idempotency-Key and, only if that succeeded, inserts the
    // charge and its state (Authorizing, after a Created -> submit event), in
    // one statement. `charge` is empty if the key was taken or the merchant
    // already has this order number.
    struct Intake {
        bool reserved = false;
        std::optional<ChargeRecord> charge;
    };
    Result<Intake> reserveAndInsertCharge(IdempotencyStore &store, const QByteArray &keyHash,
                                          int expectedDurationMs, qint64 merchantId,
                                          const ChargeRequest &request, const QString &outTradeNo,
                                          const QString &channel);
    Result<std::optional<ChargeRecord>> findByOrder(qint64 merchantId, const QString &outTradeNo);
    Result<std::optional<ChargeRecord>> findByPublicId(qint64 merchantId, const QString &publicId);
    // Whichever merchant's: a channel names the charge by keel's reference only.
    Result<std::optional<ChargeRecord>> findByReference(const QString &publicId);

    // Moves the charge from its recorded state along `events` (each one
    // whitelisted), writing one event row per step. Fails with SQLSTATE KL409
    // if someone else moved it first. Updates `charge` on success.
    Status transition(ChargeRecord &charge, const QStringList &events,
                      const QByteArray &payloadJson, const QString &upstreamEventId = {});

    Status addCaptured(ChargeRecord &charge, qint64 amount);
    Status addRefunded(ChargeRecord &charge, qint64 amount);
    // Keeps the channel's own id for the charge, for statements that name it
    // only by that; one the channel answers with later (a capture) replaces it.
    // An id keepableChannelReference() refuses is not kept, and is no error.
    Status keepChannelReference(const ChargeRecord &charge, const QString &channelReference);
    // Keeps it only if the charge has none yet.
    Status keepFirstChannelReference(const ChargeRecord &charge, const QString &channelReference);

    static QString newPublicId(const QString &prefix);

private:
    Result<std::optional<ChargeRecord>> findWhere(const QByteArray &condition,
                                                  const QByteArrayList &params);
    LibpqConnection &m_session;
};

} // namespace keel
