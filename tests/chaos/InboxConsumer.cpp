#include "InboxConsumer.h"

#include "core/db/LibpqConnection.h"
#include "core/outbox/Inbox.h"

#include <amqp.h>
#include <amqp_tcp_socket.h>

#include <QThread>

#include <optional>

namespace keel::chaos {
namespace {

constexpr const char *Queue = "chaos.inbox";

// One AMQP connection consuming the queue with manual acks.
class Subscription {
public:
    explicit Subscription(const AmqpAddress &broker) : m_state(amqp_new_connection())
    {
        amqp_socket_t *socket = amqp_tcp_socket_new(m_state);
        m_open = socket &&
                 amqp_socket_open(socket, broker.host.toUtf8().constData(), broker.port) ==
                     AMQP_STATUS_OK &&
                 amqp_login(m_state, "/", 0, 131072, 10, AMQP_SASL_METHOD_PLAIN,
                            broker.user.toUtf8().constData(), broker.password.toUtf8().constData())
                         .reply_type == AMQP_RESPONSE_NORMAL &&
                 amqp_channel_open(m_state, 1) && ok();
    }
    ~Subscription() { amqp_destroy_connection(m_state); }

    bool declare(const QString &exchange, bool quorum)
    {
        const QByteArray name = exchange.toUtf8();
        amqp_exchange_declare(m_state, 1, amqp_cstring_bytes(name.constData()),
                              amqp_cstring_bytes("topic"), 0, 1, 0, 0, amqp_empty_table);
        if (!ok())
            return false;
        amqp_table_entry_t type;
        type.key = amqp_cstring_bytes("x-queue-type");
        type.value.kind = AMQP_FIELD_KIND_UTF8;
        type.value.value.bytes = amqp_cstring_bytes("quorum");
        const amqp_table_t arguments = quorum ? amqp_table_t{1, &type} : amqp_empty_table;
        amqp_queue_declare(m_state, 1, amqp_cstring_bytes(Queue), 0, 1, 0, 0, arguments);
        if (!ok())
            return false;
        amqp_queue_bind(m_state, 1, amqp_cstring_bytes(Queue), amqp_cstring_bytes(name.constData()),
                        amqp_cstring_bytes("#"), amqp_empty_table);
        return ok();
    }
    bool consume()
    {
        amqp_basic_qos(m_state, 1, 0, 100, 0);
        amqp_basic_consume(m_state, 1, amqp_cstring_bytes(Queue), amqp_empty_bytes, 0, 0, 0,
                           amqp_empty_table);
        return ok();
    }
    // The next message's id and delivery tag; nullopt on a timeout, and
    // `broken` set when the connection is gone.
    std::optional<std::pair<QString, quint64>> next(int timeoutMs, bool *broken)
    {
        amqp_envelope_t envelope;
        timeval timeout{timeoutMs / 1000, (timeoutMs % 1000) * 1000};
        amqp_maybe_release_buffers(m_state);
        const amqp_rpc_reply_t reply = amqp_consume_message(m_state, &envelope, &timeout, 0);
        if (reply.reply_type != AMQP_RESPONSE_NORMAL) {
            *broken = !(reply.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION &&
                        reply.library_error == AMQP_STATUS_TIMEOUT);
            return std::nullopt;
        }
        const QString id = QString::fromUtf8(
            static_cast<const char *>(envelope.message.properties.message_id.bytes),
            qsizetype(envelope.message.properties.message_id.len));
        const quint64 tag = envelope.delivery_tag;
        amqp_destroy_envelope(&envelope);
        return std::pair{id, tag};
    }
    bool ack(quint64 tag) { return amqp_basic_ack(m_state, 1, tag, 0) == AMQP_STATUS_OK; }
    bool open() const { return m_open; }

private:
    bool ok() { return amqp_get_rpc_reply(m_state).reply_type == AMQP_RESPONSE_NORMAL; }

    amqp_connection_state_t m_state;
    bool m_open = false;
};

} // namespace

InboxConsumer::InboxConsumer(QList<AmqpAddress> nodes, QString exchange,
                             ConnectionSettings database)
    : m_nodes(std::move(nodes)), m_exchange(std::move(exchange)), m_database(std::move(database))
{}

InboxConsumer::~InboxConsumer()
{
    stop();
}

bool InboxConsumer::start()
{
    Subscription setup(m_nodes.first());
    if (!setup.open() || !setup.declare(m_exchange, m_nodes.size() > 1))
        return false;
    m_thread = std::thread([this] { run(); });
    return true;
}

void InboxConsumer::stop()
{
    m_stopping = true;
    if (m_thread.joinable())
        m_thread.join();
}

void InboxConsumer::run()
{
    while (!m_stopping) {
        Result<LibpqConnection> database = LibpqConnection::open(m_database);
        Subscription subscription(m_nodes.at(m_node));
        if (!database || !subscription.open() || !subscription.consume()) {
            m_node = (m_node + 1) % m_nodes.size();
            ++m_reconnects;
            QThread::msleep(300);
            continue;
        }
        Inbox inbox(*database);
        bool broken = false;
        while (!m_stopping && !broken) {
            const auto message = subscription.next(200, &broken);
            if (!message)
                continue;
            ++m_received;
            const QByteArray id = message->first.toUtf8();
            Result<Inbox::Outcome> outcome =
                inbox.process(QStringLiteral("chaos"), message->first, [&](LibpqConnection &c) {
                    auto applied =
                        c.query("INSERT INTO chaos.applied_events (message_id) VALUES ($1)", {id});
                    return applied ? Status() : Status(applied.error());
                });
            // Not applied: leave it unacked; the broker redelivers it to the next connection.
            if (!outcome)
                break;
            if (*outcome == Inbox::Outcome::Duplicate)
                ++m_duplicates;
            if (!subscription.ack(message->second))
                break;
        }
        m_node = (m_node + 1) % m_nodes.size();
        ++m_reconnects;
    }
}

} // namespace keel::chaos
