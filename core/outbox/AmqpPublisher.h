#pragma once

#include "core/Result.h"
#include "core/outbox/AmqpAddress.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>
#include <optional>

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
// read), not one round trip per message. Several windows may be open at once
// (post, then collect), so a caller can send more while the broker confirms
// what it sent before. Not thread-safe; reconnects on the next post after a
// failure.
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

    struct Published {
        QList<PublishVerdict> verdicts;      // one per message, in order
        std::optional<Error> connectionLost; // messages without a confirm are Unknown
    };
    Published publish(const QList<OutgoingMessage> &messages, int timeoutMs);

    // The same in two halves. post() sends a window without waiting and
    // returns its ticket, or why the connection failed (then every open
    // window is dropped: none of them can be confirmed any more, so each of
    // their messages is Unknown).
    // Each window must be confirmed within `timeoutMs` of its post.
    Result<quint64> post(const QList<OutgoingMessage> &messages, int timeoutMs);
    struct SettledWindow {
        quint64 ticket = 0;
        QList<PublishVerdict> verdicts; // Unknown where the connection went first
    };
    struct Collected {
        QList<SettledWindow> windows; // oldest first
        std::optional<Error> connectionLost;
    };
    // Reads confirms for up to `waitMs` and returns as soon as some windows
    // have every verdict (none if the time ran out first). When the connection
    // fails, every open window comes back with why.
    Collected collect(int waitMs);
    int openWindows() const;

    // The node in use, or the one tried last.
    const AmqpAddress &address() const { return m_address; }
    // A cluster's other nodes: when the node in use cannot be reached or
    // refuses the login, connect() tries each of these in turn and keeps the
    // one that answers. Confirms still come from the node that took a
    // message, so nothing unconfirmed counts as sent.
    void setOtherNodes(QList<AmqpAddress> nodes) { m_otherNodes = std::move(nodes); }

    // On every connect, also declare a durable queue bound to every routing
    // key ("#"), holding at most `maxLength` messages (the oldest go first):
    // for `keel dev`, so its events have somewhere to go.
    void setCatchAllQueue(const QString &queue, int maxLength,
                          const QStringList &bindings = {QStringLiteral("#")});

private:
    struct Connection;
    struct Window;
    Error failure(const QString &what) const;
    Status connectToCurrent(int timeoutMs);
    // Each returns why the connection failed, or nothing.
    std::optional<QString> send(const QList<OutgoingMessage> &messages, Window &window);
    std::optional<QString> readFrame(int waitMs);
    void settle(quint64 tag, bool multiple, PublishVerdict verdict);
    // Every open window as it stands, and the connection dropped.
    Collected abandon(const QString &why);

    AmqpAddress m_address;
    QList<AmqpAddress> m_otherNodes;
    QString m_exchange;
    std::unique_ptr<Connection> m_connection;
    quint64 m_nextTag = 1; // the delivery tag of the next publish on this channel
    quint64 m_nextTicket = 1;
    std::map<quint64, std::unique_ptr<Window>> m_open; // by ticket, oldest first
    QString m_catchAllQueue;
    int m_catchAllLength = 0;
    QStringList m_catchAllBindings;
};

} // namespace keel
