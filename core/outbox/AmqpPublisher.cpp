#include "core/outbox/AmqpPublisher.h"

#include <amqp.h>
#include <amqp_framing.h>
#include <amqp_tcp_socket.h>

#include <QElapsedTimer>
#include <QHash>

#include <cstring>

namespace keel {
namespace {

constexpr amqp_channel_t Channel = 1;

amqp_bytes_t bytesOf(const QByteArray &data)
{
    amqp_bytes_t bytes;
    bytes.len = size_t(data.size());
    bytes.bytes = const_cast<char *>(data.constData());
    return bytes;
}

// Why a call failed, or nothing when it did not.
std::optional<QString> replyError(const amqp_rpc_reply_t &reply)
{
    switch (reply.reply_type) {
    case AMQP_RESPONSE_NORMAL:
        return std::nullopt;
    case AMQP_RESPONSE_NONE:
        return QStringLiteral("the broker did not answer");
    case AMQP_RESPONSE_LIBRARY_EXCEPTION:
        return QString::fromUtf8(amqp_error_string2(reply.library_error));
    case AMQP_RESPONSE_SERVER_EXCEPTION:
        if (reply.reply.id == AMQP_CONNECTION_CLOSE_METHOD) {
            const auto *close = static_cast<amqp_connection_close_t *>(reply.reply.decoded);
            return QStringLiteral("the broker closed the connection: %1")
                .arg(QString::fromUtf8(static_cast<const char *>(close->reply_text.bytes),
                                       qsizetype(close->reply_text.len)));
        }
        if (reply.reply.id == AMQP_CHANNEL_CLOSE_METHOD) {
            const auto *close = static_cast<amqp_channel_close_t *>(reply.reply.decoded);
            return QStringLiteral("the broker closed the channel: %1")
                .arg(QString::fromUtf8(static_cast<const char *>(close->reply_text.bytes),
                                       qsizetype(close->reply_text.len)));
        }
        return QStringLiteral("the broker refused the request");
    }
    return QStringLiteral("unknown broker reply");
}

} // namespace

struct AmqpPublisher::Connection {
    amqp_connection_state_t state = amqp_new_connection();
    bool open = false;
    ~Connection()
    {
        if (open) {
            amqp_channel_close(state, Channel, AMQP_REPLY_SUCCESS);
            amqp_connection_close(state, AMQP_REPLY_SUCCESS);
        }
        amqp_destroy_connection(state);
    }
};

AmqpPublisher::AmqpPublisher(AmqpAddress address, QString exchange)
    : m_address(std::move(address)), m_exchange(std::move(exchange))
{}

AmqpPublisher::~AmqpPublisher() = default;

Error AmqpPublisher::failure(const QString &what) const
{
    return codedError(ErrorKind::Connection, QStringLiteral("keel_broker_unavailable"),
                      QStringLiteral("RabbitMQ at %1: %2").arg(m_address.redacted(), what));
}

void AmqpPublisher::setCatchAllQueue(const QString &queue, int maxLength,
                                     const QStringList &bindings)
{
    m_catchAllQueue = queue;
    m_catchAllLength = maxLength;
    m_catchAllBindings = bindings;
}

bool AmqpPublisher::connected() const
{
    return m_connection && m_connection->open;
}

void AmqpPublisher::disconnect()
{
    m_open.clear(); // their confirms can no longer come
    m_connection.reset();
}

Status AmqpPublisher::connect(int timeoutMs)
{
    Status opened = connectToCurrent(timeoutMs);
    // Each swap makes the next node current and leaves the one that failed
    // in its place, so every node is tried once and the order rotates.
    for (qsizetype i = 0; !opened && i < m_otherNodes.size(); ++i) {
        std::swap(m_address, m_otherNodes[i]);
        opened = connectToCurrent(timeoutMs);
    }
    if (opened || m_otherNodes.isEmpty())
        return opened;
    Error none = opened.error();
    none.message +=
        QStringLiteral(" (and each of the %1 other nodes failed too)").arg(m_otherNodes.size());
    return none;
}

Status AmqpPublisher::connectToCurrent(int timeoutMs)
{
    disconnect();
    auto connection = std::make_unique<Connection>();
    amqp_socket_t *socket = amqp_tcp_socket_new(connection->state);
    if (!socket)
        return failure(QStringLiteral("cannot create a socket"));
    timeval timeout{timeoutMs / 1000, (timeoutMs % 1000) * 1000};
    // Without these every login, declare and close waits forever: a node that
    // takes the connection and then stalls would hold the relay, and the
    // other nodes would never be tried.
    amqp_set_handshake_timeout(connection->state, &timeout);
    amqp_set_rpc_timeout(connection->state, &timeout);
    if (const int opened = amqp_socket_open_noblock(socket, m_address.host.toUtf8().constData(),
                                                    m_address.port, &timeout);
        opened != AMQP_STATUS_OK)
        return failure(QString::fromUtf8(amqp_error_string2(opened)));
    const amqp_rpc_reply_t login =
        amqp_login(connection->state, m_address.vhost.toUtf8().constData(), 0, 131072, 0,
                   AMQP_SASL_METHOD_PLAIN, m_address.user.toUtf8().constData(),
                   m_address.password.toUtf8().constData());
    if (const auto refused = replyError(login))
        return failure(QStringLiteral("login refused or failed (%1)").arg(*refused));
    connection->open = true;
    amqp_channel_open(connection->state, Channel);
    if (const auto error = replyError(amqp_get_rpc_reply(connection->state)))
        return failure(*error);
    const QByteArray exchange = m_exchange.toUtf8();
    amqp_exchange_declare(connection->state, Channel, bytesOf(exchange),
                          amqp_cstring_bytes("topic"), 0, 1, 0, 0, amqp_empty_table);
    if (const auto error = replyError(amqp_get_rpc_reply(connection->state)))
        return failure(
            QStringLiteral("cannot declare the exchange %1: %2").arg(m_exchange, *error));
    if (!m_catchAllQueue.isEmpty()) {
        const QByteArray queue = m_catchAllQueue.toUtf8();
        amqp_table_entry_t limit;
        limit.key = amqp_cstring_bytes("x-max-length");
        limit.value.kind = AMQP_FIELD_KIND_I32;
        limit.value.value.i32 = m_catchAllLength;
        amqp_table_t arguments;
        arguments.num_entries = 1;
        arguments.entries = &limit;
        amqp_queue_declare(connection->state, Channel, bytesOf(queue), 0, 1, 0, 0, arguments);
        if (const auto error = replyError(amqp_get_rpc_reply(connection->state)))
            return failure(*error);
        // A durable queue keeps its bindings: one that took everything
        // before must not keep doing so once fewer keys are wanted.
        if (!m_catchAllBindings.contains(QStringLiteral("#"))) {
            amqp_queue_unbind(connection->state, Channel, bytesOf(queue), bytesOf(exchange),
                              amqp_cstring_bytes("#"), amqp_empty_table);
            if (const auto error = replyError(amqp_get_rpc_reply(connection->state)))
                return failure(*error);
        }
        for (const QString &binding : std::as_const(m_catchAllBindings)) {
            amqp_queue_bind(connection->state, Channel, bytesOf(queue), bytesOf(exchange),
                            bytesOf(binding.toUtf8()), amqp_empty_table);
            if (const auto error = replyError(amqp_get_rpc_reply(connection->state)))
                return failure(*error);
        }
    }
    amqp_confirm_select(connection->state, Channel);
    if (const auto error = replyError(amqp_get_rpc_reply(connection->state)))
        return failure(*error);
    m_connection = std::move(connection);
    m_nextTag = 1;
    return {};
}

// One window of messages on its way: each one's verdict so far, found by
// its delivery tag (confirms) or its message id (returns).
struct AmqpPublisher::Window {
    QList<PublishVerdict> verdicts;
    QHash<quint64, int> byTag;
    QHash<QByteArray, int> byId;
    int pending = 0;
    QElapsedTimer posted;
    int timeoutMs = 0;

    // Confirms arrive in any grouping ("multiple"); a returned message is
    // returned before its confirm, and stays Returned.
    void settle(quint64 tag, bool multiple, PublishVerdict verdict)
    {
        for (auto it = byTag.begin(); it != byTag.end();) {
            if (it.key() == tag || (multiple && it.key() < tag)) {
                if (verdicts[it.value()] != PublishVerdict::Returned)
                    verdicts[it.value()] = verdict;
                --pending;
                it = byTag.erase(it);
            } else {
                ++it;
            }
        }
    }
    qint64 msLeft() const { return timeoutMs - posted.elapsed(); }
};

std::optional<QString> AmqpPublisher::send(const QList<OutgoingMessage> &messages, Window &window)
{
    const QByteArray exchange = m_exchange.toUtf8();
    for (int i = 0; i < messages.size(); ++i) {
        const OutgoingMessage &message = messages[i];
        const QByteArray id = message.messageId.toUtf8();
        const QByteArray key = message.routingKey.toUtf8();
        amqp_basic_properties_t properties;
        std::memset(&properties, 0, sizeof properties);
        properties._flags = AMQP_BASIC_CONTENT_TYPE_FLAG | AMQP_BASIC_DELIVERY_MODE_FLAG |
                            AMQP_BASIC_MESSAGE_ID_FLAG;
        properties.content_type = amqp_cstring_bytes("application/json");
        properties.delivery_mode = AMQP_DELIVERY_PERSISTENT;
        properties.message_id = bytesOf(id);
        if (const int sent =
                amqp_basic_publish(m_connection->state, Channel, bytesOf(exchange), bytesOf(key), 1,
                                   0, &properties, bytesOf(message.body));
            sent != AMQP_STATUS_OK)
            return QString::fromUtf8(amqp_error_string2(sent));
        window.byTag.insert(m_nextTag++, i);
        window.byId.insert(id, i);
        ++window.pending;
    }
    return std::nullopt;
}

int AmqpPublisher::openWindows() const
{
    return int(m_open.size());
}

void AmqpPublisher::settle(quint64 tag, bool multiple, PublishVerdict verdict)
{
    for (auto &[ticket, window] : m_open)
        window->settle(tag, multiple, verdict);
}

std::optional<QString> AmqpPublisher::readFrame(int waitMs)
{
    amqp_connection_state_t state = m_connection->state;
    timeval wait{long(waitMs / 1000), long(waitMs % 1000) * 1000};
    amqp_frame_t frame;
    const int got = amqp_simple_wait_frame_noblock(state, &frame, &wait);
    if (got == AMQP_STATUS_TIMEOUT)
        return std::nullopt;
    if (got != AMQP_STATUS_OK)
        return QString::fromUtf8(amqp_error_string2(got));
    if (frame.frame_type != AMQP_FRAME_METHOD)
        return std::nullopt;
    switch (frame.payload.method.id) {
    case AMQP_BASIC_ACK_METHOD: {
        const auto *ack = static_cast<amqp_basic_ack_t *>(frame.payload.method.decoded);
        settle(ack->delivery_tag, ack->multiple, PublishVerdict::Confirmed);
        break;
    }
    case AMQP_BASIC_NACK_METHOD: {
        const auto *nack = static_cast<amqp_basic_nack_t *>(frame.payload.method.decoded);
        settle(nack->delivery_tag, nack->multiple, PublishVerdict::Nacked);
        break;
    }
    case AMQP_BASIC_RETURN_METHOD: {
        amqp_message_t returned;
        const amqp_rpc_reply_t read = amqp_read_message(state, frame.channel, &returned, 0);
        if (const auto lost = replyError(read))
            return lost;
        const QByteArray id(static_cast<const char *>(returned.properties.message_id.bytes),
                            qsizetype(returned.properties.message_id.len));
        for (auto &[ticket, window] : m_open)
            if (window->byId.contains(id))
                window->verdicts[window->byId.value(id)] = PublishVerdict::Returned;
        amqp_destroy_message(&returned);
        break;
    }
    case AMQP_CHANNEL_CLOSE_METHOD:
    case AMQP_CONNECTION_CLOSE_METHOD:
        return QStringLiteral("the broker closed the channel");
    default:
        break;
    }
    return std::nullopt;
}

AmqpPublisher::Collected AmqpPublisher::abandon(const QString &why)
{
    Collected collected;
    for (auto &[ticket, window] : m_open)
        collected.windows.append({ticket, window->verdicts});
    collected.connectionLost = failure(why);
    // A connection given up on is not closed politely: the close would wait
    // for an answer that may never come.
    if (m_connection)
        m_connection->open = false;
    disconnect();
    return collected;
}

AmqpPublisher::Collected AmqpPublisher::collect(int waitMs)
{
    QElapsedTimer timer;
    timer.start();
    QList<SettledWindow> settled;
    while (!m_open.empty()) {
        for (auto it = m_open.begin(); it != m_open.end();) {
            if (it->second->pending > 0) {
                ++it;
                continue;
            }
            settled.append({it->first, it->second->verdicts});
            it = m_open.erase(it);
        }
        if (!settled.isEmpty() || m_open.empty())
            break;
        qint64 left = waitMs - timer.elapsed();
        for (const auto &[ticket, window] : m_open) {
            if (window->msLeft() <= 0)
                return abandon(QStringLiteral("no confirm within %1 ms").arg(window->timeoutMs));
            left = std::min(left, window->msLeft());
        }
        if (left < 0)
            break;
        if (const auto lost = readFrame(int(left)))
            return abandon(*lost);
        if (left == 0)
            break;
    }
    if (m_connection)
        amqp_maybe_release_buffers(m_connection->state);
    return {settled, std::nullopt};
}

Result<quint64> AmqpPublisher::post(const QList<OutgoingMessage> &messages, int timeoutMs)
{
    if (!connected())
        if (Status opened = connect(timeoutMs); !opened)
            return opened.error();
    auto window = std::make_unique<Window>();
    window->verdicts = QList<PublishVerdict>(messages.size(), PublishVerdict::Unknown);
    window->timeoutMs = timeoutMs;
    window->posted.start();
    const quint64 ticket = m_nextTicket++;
    Window &sending = *window;
    m_open.emplace(ticket, std::move(window));
    if (const auto lost = send(messages, sending))
        return *abandon(*lost).connectionLost;
    return ticket;
}

AmqpPublisher::Published AmqpPublisher::publish(const QList<OutgoingMessage> &messages,
                                                int timeoutMs)
{
    const Result<quint64> ticket = post(messages, timeoutMs);
    if (!ticket)
        return {QList<PublishVerdict>(messages.size(), PublishVerdict::Unknown), ticket.error()};
    for (;;) {
        const Collected collected = collect(timeoutMs);
        for (const SettledWindow &window : collected.windows)
            if (window.ticket == *ticket)
                return {window.verdicts, collected.connectionLost};
        if (collected.connectionLost)
            return {QList<PublishVerdict>(messages.size(), PublishVerdict::Unknown),
                    collected.connectionLost};
    }
}

} // namespace keel
