#pragma once

#include "core/Result.h"

#include <QByteArray>
#include <QString>

namespace keel {

class LibpqConnection;

// Who is told of an event over HTTP besides the broker: the merchant (if it
// has a notify_url), with the Stripe-shaped object the event is about.
struct MerchantNotice {
    qint64 merchantId = 0;
    QString chargeId; // the charge the event belongs to, for its timeline
    QByteArray objectJson;
};

// Writes an event for other systems into the outbox, inside the caller's
// transaction, so it exists exactly when the business change does. The relay
// publishes it later.
class Outbox final {
public:
    explicit Outbox(LibpqConnection &session) : m_session(session) {}
    Status enqueue(const QString &aggregateType, const QString &aggregateId,
                   const QString &eventType, const QByteArray &payloadJson);
    // The event and, in the same statement, its notification to the
    // merchant: a Stripe event (`evt_<outbox id>`) delivered by the workers.
    Status enqueue(const QString &aggregateType, const QString &aggregateId,
                   const QString &eventType, const QByteArray &payloadJson,
                   const MerchantNotice &notice);

private:
    LibpqConnection &m_session;
};

} // namespace keel
