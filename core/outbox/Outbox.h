#pragma once

#include "core/Result.h"

#include <QByteArray>
#include <QString>

namespace keel {

class PgConnection;

// Writes an event for other systems into the outbox, inside the caller's
// transaction, so it exists exactly when the business change does. The relay
// publishes it later.
class Outbox final {
public:
    explicit Outbox(PgConnection &session) : m_session(session) {}
    Status enqueue(const QString &aggregateType, const QString &aggregateId,
                   const QString &eventType, const QByteArray &payloadJson);

private:
    PgConnection &m_session;
};

} // namespace keel
