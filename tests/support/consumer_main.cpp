// keel-test-consumer DSN AMQP_URL QUEUE COUNT
// A consumer built on keel's Inbox, for the tests: takes messages from QUEUE
// with manual acks, applies each one's effect (a row in consumed_effects) and
// records it in the inbox in one transaction, then acks. Stops after COUNT
// messages or 3 s without one; prints "applied N duplicates M". A chaos point
// between the commit and the ack lets a test kill it exactly there.
#include "core/Chaos.h"
#include "core/db/ConnectionSettings.h"
#include "core/db/LibpqConnection.h"
#include "core/outbox/AmqpAddress.h"
#include "core/outbox/Inbox.h"

#include <amqp.h>
#include <amqp_tcp_socket.h>

#include <QCoreApplication>
#include <QStringList>

#include <cstdio>

using namespace keel;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList arguments = QCoreApplication::arguments();
    if (arguments.size() != 5) {
        std::fprintf(stderr, "usage: keel-test-consumer DSN AMQP_URL QUEUE COUNT\n");
        return 2;
    }
    auto settings = ConnectionSettings::parse(arguments.at(1));
    auto broker = AmqpAddress::parse(arguments.at(2));
    if (!settings || !broker)
        return 2;
    auto connection = LibpqConnection::open(*settings);
    if (!connection) {
        std::fprintf(stderr, "%s\n", qPrintable(connection.error().message));
        return 1;
    }
    amqp_connection_state_t state = amqp_new_connection();
    amqp_socket_t *socket = amqp_tcp_socket_new(state);
    if (amqp_socket_open(socket, broker->host.toUtf8().constData(), broker->port) != 0 ||
        amqp_login(state, "/", 0, 131072, 0, AMQP_SASL_METHOD_PLAIN, "guest", "guest").reply_type !=
            AMQP_RESPONSE_NORMAL)
        return 1;
    amqp_channel_open(state, 1);
    amqp_basic_qos(state, 1, 0, 1, 0); // one unacknowledged message at a time
    const QByteArray queue = arguments.at(3).toUtf8();
    amqp_basic_consume(state, 1, amqp_cstring_bytes(queue.constData()), amqp_empty_bytes, 0, 0, 0,
                       amqp_empty_table);
    if (amqp_get_rpc_reply(state).reply_type != AMQP_RESPONSE_NORMAL)
        return 1;
    const int wanted = arguments.at(4).toInt();
    int applied = 0;
    int duplicates = 0;
    while (applied + duplicates < wanted) {
        amqp_envelope_t envelope;
        timeval timeout{3, 0};
        amqp_maybe_release_buffers(state);
        if (amqp_consume_message(state, &envelope, &timeout, 0).reply_type != AMQP_RESPONSE_NORMAL)
            break;
        const QString id = QString::fromUtf8(
            static_cast<const char *>(envelope.message.properties.message_id.bytes),
            qsizetype(envelope.message.properties.message_id.len));
        auto outcome = Inbox(*connection)
                           .process(QStringLiteral("test-consumer"), id, [&](LibpqConnection &c) {
                               auto rows =
                                   c.query("INSERT INTO consumed_effects (message_id) VALUES ($1)",
                                           {id.toUtf8()});
                               return rows ? Status() : Status(rows.error());
                           });
        if (!outcome) {
            std::fprintf(stderr, "%s\n", qPrintable(outcome.error().message));
            return 1;
        }
        ++(*outcome == Inbox::Outcome::Applied ? applied : duplicates);
        chaosPoint("consumer_effect_committed");
        amqp_basic_ack(state, 1, envelope.delivery_tag, 0);
        amqp_destroy_envelope(&envelope);
    }
    std::printf("applied %d duplicates %d\n", applied, duplicates);
    amqp_channel_close(state, 1, AMQP_REPLY_SUCCESS);
    amqp_connection_close(state, AMQP_REPLY_SUCCESS);
    amqp_destroy_connection(state);
    return 0;
}
