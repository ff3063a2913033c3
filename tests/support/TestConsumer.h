#pragma once

// A plain AMQP consumer for the relay's tests: a queue bound to the test's
// exchange, messages read with auto-ack.

#include "core/outbox/AmqpAddress.h"

#include <amqp.h>
#include <amqp_tcp_socket.h>

#include <QJsonDocument>
#include <QJsonObject>
#include <QList>

#include <gtest/gtest.h>

namespace keel::test {

// A plain consumer: a queue of its own bound to the test's exchange.
class Consumer final {
public:
    // `queue` empty: a queue of its own that goes with the connection;
    // otherwise a durable queue of that name, which outlives broker restarts.
    Consumer(const AmqpAddress &broker, const QString &exchange, const QString &bindingKey,
             const QString &queue = {})
    {
        m_state = amqp_new_connection();
        amqp_socket_t *socket = amqp_tcp_socket_new(m_state);
        EXPECT_EQ(amqp_socket_open(socket, broker.host.toUtf8().constData(), broker.port),
                  AMQP_STATUS_OK);
        EXPECT_EQ(amqp_login(m_state, "/", 0, 131072, 0, AMQP_SASL_METHOD_PLAIN, "guest", "guest")
                      .reply_type,
                  AMQP_RESPONSE_NORMAL);
        amqp_channel_open(m_state, 1);
        const QByteArray name = exchange.toUtf8();
        amqp_exchange_declare(m_state, 1, amqp_cstring_bytes(name.constData()),
                              amqp_cstring_bytes("topic"), 0, 1, 0, 0, amqp_empty_table);
        const QByteArray queueName = queue.toUtf8();
        amqp_queue_declare_ok_t *declared = amqp_queue_declare(
            m_state, 1,
            queue.isEmpty() ? amqp_empty_bytes : amqp_cstring_bytes(queueName.constData()), 0,
            queue.isEmpty() ? 0 : 1, queue.isEmpty() ? 1 : 0, queue.isEmpty() ? 1 : 0,
            amqp_empty_table);
        EXPECT_NE(declared, nullptr);
        if (!declared)
            return;
        const amqp_bytes_t declaredName = amqp_bytes_malloc_dup(declared->queue);
        const QByteArray key = bindingKey.toUtf8();
        amqp_queue_bind(m_state, 1, declaredName, amqp_cstring_bytes(name.constData()),
                        amqp_cstring_bytes(key.constData()), amqp_empty_table);
        amqp_basic_consume(m_state, 1, declaredName, amqp_empty_bytes, 0, 1, 0, amqp_empty_table);
        amqp_bytes_free(declaredName);
        EXPECT_EQ(amqp_get_rpc_reply(m_state).reply_type, AMQP_RESPONSE_NORMAL);
    }
    ~Consumer() { amqp_destroy_connection(m_state); }

    struct Message {
        QString messageId;
        QString routingKey;
        bool persistent = false;
        QJsonObject body;
    };
    // Messages that arrive within `timeoutMs` of each other, until `count`.
    QList<Message> receive(int count, int timeoutMs = 5000)
    {
        QList<Message> messages;
        while (messages.size() < count) {
            amqp_envelope_t envelope;
            timeval timeout{timeoutMs / 1000, (timeoutMs % 1000) * 1000};
            amqp_maybe_release_buffers(m_state);
            if (amqp_consume_message(m_state, &envelope, &timeout, 0).reply_type !=
                AMQP_RESPONSE_NORMAL)
                break;
            Message message;
            message.messageId = QString::fromUtf8(
                static_cast<const char *>(envelope.message.properties.message_id.bytes),
                qsizetype(envelope.message.properties.message_id.len));
            message.routingKey =
                QString::fromUtf8(static_cast<const char *>(envelope.routing_key.bytes),
                                  qsizetype(envelope.routing_key.len));
            message.persistent = envelope.message.properties.delivery_mode == 2;
            message.body = QJsonDocument::fromJson(
                               QByteArray(static_cast<const char *>(envelope.message.body.bytes),
                                          qsizetype(envelope.message.body.len)))
                               .object();
            messages.append(message);
            amqp_destroy_envelope(&envelope);
        }
        return messages;
    }

private:
    amqp_connection_state_t m_state;
};

} // namespace keel::test
