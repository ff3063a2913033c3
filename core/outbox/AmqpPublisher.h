#pragma once

#include "core/Result.h"
#include "core/outbox/AmqpAddress.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <memory>

namespace keel {

struct OutgoingMessage {
    QString messageId;  // stable: the same row always carries the same id
    QString routingKey; // <aggregate_type>.<event_type>
    QByteArray body;
};

// What the broker said of one published message.
enum class PublishVerdict {
    Confirmed, // routed and stored (persistent, to a durable exchange's queues)
    Returned,  // no queue was bound for it (mandatory): not delivered
    Nacked,    // the broker could not take it
    Unknown,   // the connection went before the broker answered
};

// Publishes to a RabbitMQ topic exchange with rabbitmq-c: persistent
// messages with a message_id, the mandatory flag, and publisher confirms,
// waited for as a window (all of a batch is sent, then every confirm is
// read), not one round trip per message. Not thread-safe; reconnects on the
// next publish after a failure.
class AmqpPublisher final {
public:
    AmqpPublisher(AmqpAddress address, QString exchange);
    ~AmqpPublisher();
    Q_DISABLE_COPY_MOVE(AmqpPublisher)

    // Connects, logs in, declares the exchange (durable topic) and turns
    // on confirms. Errors name the broker without its password.
    Status connect(int timeoutMs = 5000);
    bool connected() const;
    void disconnect();

    // One verdict per message, in order. An error means the connection
    // failed; messages without a confirm are Unknown.
    QList<PublishVerdict> publish(const QList<OutgoingMessage> &messages, int timeoutMs,
                                  Error *connectionError = nullptr);

    const AmqpAddress &address() const { return m_address; }

    // On every connect, also declare a durable queue bound to every routing
    // key ("#"), holding at most `maxLength` messages (the oldest go first):
    // for `keel dev`, so its events have somewhere to go.
    void setCatchAllQueue(const QString &queue, int maxLength);

private:
    struct Connection;
    struct Window;
    Error failure(const QString &what) const;
    // Each returns why the connection failed, or nothing.
    QString send(const QList<OutgoingMessage> &messages, Window &window);
    QString awaitConfirms(Window &window, int timeoutMs);

    AmqpAddress m_address;
    QString m_exchange;
    std::unique_ptr<Connection> m_connection;
    quint64 m_nextTag = 1; // the delivery tag of the next publish on this channel
    QString m_catchAllQueue;
    int m_catchAllLength = 0;
};

} // namespace keel
