// The relay under faults, as separate processes on real servers: killed with
// SIGKILL mid-stream, and the database restarted under it. Every committed
// row reaches the broker; a row is published twice only when the relay that
// had it in flight died, at most two confirm windows of them (OutboxRelay.h),
// and an inbox consumer applies each message exactly once.

#include "KeelProcess.h"
#include "MigratedDatabaseTest.h"
#include "PrivateCluster.h"
#include "TestBroker.h"
#include "TestConsumer.h"
#include "WaitUntil.h"

#include "core/db/LibpqConnection.h"
#include "core/outbox/Inbox.h"
#include "devkit/servers/EmbeddedCluster.h"

#include <QHash>
#include <QProcess>
#include <QRandomGenerator>
#include <QSet>

namespace keel::test {
namespace {

constexpr int Batch = 50;

QString unique(const char *prefix)
{
    return QStringLiteral("%1.%2")
        .arg(QLatin1String(prefix))
        .arg(QRandomGenerator::global()->bounded(1000000000));
}

// Where a spawned relay's log lines (stderr) go.
enum class RelayLog { Forwarded, ReadByTheTest };

std::unique_ptr<QProcess> spawnRelay(const ConnectionSettings &settings, const QString &exchange,
                                     RelayLog log = RelayLog::Forwarded)
{
    auto process = std::make_unique<QProcess>();
    process->setProcessChannelMode(log == RelayLog::Forwarded ? QProcess::ForwardedErrorChannel
                                                              : QProcess::MergedChannels);
    process->start(keelBinary(),
                   {QStringLiteral("relay"), QStringLiteral("--db"), settings.conninfo(),
                    QStringLiteral("--amqp"), testBroker().url(), QStringLiteral("--exchange"),
                    exchange, QStringLiteral("--poll"), QStringLiteral("200"),
                    QStringLiteral("--batch"), QString::number(Batch)});
    // Its log lines may come first when they share the pipe.
    QByteArray early;
    EXPECT_TRUE(waitUntil(
        [&] {
            process->waitForReadyRead(100);
            early += process->readAll();
            return early.contains("KEEL_RELAY=ready");
        },
        20000))
        << early.constData();
    return process;
}

// Rows for `aggregates` charges, their payload numbering each charge's events.
Status enqueue(LibpqConnection &connection, int from, int count, int aggregates)
{
    Result<PgRows> inserted = connection.query(
        "INSERT INTO keel.outbox (aggregate_type, aggregate_id, event_type, payload) "
        "SELECT 'charge', 'ch_' || (n % $3), 'charge.succeeded', "
        "  jsonb_build_object('sequence', n) "
        "FROM generate_series($1::int, $1::int + $2::int - 1) AS n",
        {QByteArray::number(from), QByteArray::number(count), QByteArray::number(aggregates)});
    return inserted ? Status() : Status(inserted.error());
}

qint64 unpublished(const ConnectionSettings &settings)
{
    auto connection = LibpqConnection::open(settings);
    if (!connection)
        return -1;
    auto count = connection->scalar("SELECT count(*) FROM keel.outbox WHERE published_at IS NULL");
    return count ? count->toLongLong() : -1;
}

struct Delivery {
    int messages = 0;
    int distinct = 0;
    int outOfOrder = 0; // an aggregate's events first seen out of their written order
    int applied = 0;    // by the inbox consumer
    int absorbed = 0;   // duplicates the inbox turned away
};

// Reads everything the durable queue holds and runs it through an inbox.
Delivery drain(Consumer &consumer, const ConnectionSettings &settings, int expected)
{
    Delivery delivery;
    auto connection = LibpqConnection::open(settings);
    EXPECT_TRUE(connection.ok());
    Inbox inbox(*connection);
    QSet<QString> seen;
    QHash<QString, int> lastSequence;
    for (const Consumer::Message &message : consumer.receive(expected + 4 * Batch, 3000)) {
        ++delivery.messages;
        const QJsonObject payload = message.body.value(QLatin1String("payload")).toObject();
        const int sequence = payload.value(QLatin1String("sequence")).toInt();
        const QString aggregate = message.body.value(QLatin1String("aggregate"))
                                      .toObject()
                                      .value(QLatin1String("id"))
                                      .toString();
        if (!seen.contains(message.messageId)) {
            seen.insert(message.messageId);
            if (lastSequence.contains(aggregate) && lastSequence.value(aggregate) > sequence)
                ++delivery.outOfOrder;
            lastSequence[aggregate] = sequence;
        }
        auto outcome = inbox.process(QStringLiteral("chaos-test"), message.messageId,
                                     [](LibpqConnection &) { return Status(); });
        EXPECT_TRUE(outcome.ok());
        if (outcome && *outcome == Inbox::Outcome::Applied)
            ++delivery.applied;
        else
            ++delivery.absorbed;
    }
    delivery.distinct = int(seen.size());
    return delivery;
}

class RelayChaosTest : public MigratedDatabaseTest {};

} // namespace

TEST_F(RelayChaosTest, ARelayKilledMidStreamLosesNothingAndItsDuplicatesAreBounded)
{
    constexpr int Rows = 20000;
    const QString exchange = unique("keel.chaos");
    Consumer consumer(testBroker(), exchange, QStringLiteral("#"), unique("keel-chaos-kill"));
    auto connection = LibpqConnection::open(settings());
    ASSERT_TRUE(connection.ok());
    ASSERT_TRUE(enqueue(*connection, 0, Rows, 40).ok());

    auto doomed = spawnRelay(settings(), exchange);
    ASSERT_TRUE(waitUntil([&] { return unpublished(settings()) < Rows - 2000; }, 60000));
    doomed->kill(); // SIGKILL: windows in flight are neither marked nor forgotten
    ASSERT_TRUE(doomed->waitForFinished(10000));
    const qint64 leftBehind = unpublished(settings());
    EXPECT_GT(leftBehind, 0) << "killed too late to prove anything";

    // Two relays take over together: no row twice between the two of them.
    auto first = spawnRelay(settings(), exchange);
    auto second = spawnRelay(settings(), exchange);
    EXPECT_TRUE(waitUntil([&] { return unpublished(settings()) == 0; }, 120000));
    const Delivery delivery = drain(consumer, settings(), Rows);
    EXPECT_EQ(delivery.distinct, Rows) << "every committed row reached the broker";
    EXPECT_LE(delivery.messages - delivery.distinct, 2 * Batch)
        << "duplicates beyond the killed relay's two windows";
    EXPECT_EQ(delivery.outOfOrder, 0);
    EXPECT_EQ(delivery.applied, Rows) << "the inbox applied each message once";
    EXPECT_EQ(delivery.absorbed, delivery.messages - delivery.distinct);
    std::cout << "[ figures  ] killed with " << leftBehind << " rows unpublished; "
              << delivery.messages - delivery.distinct << " duplicates (bound " << 2 * Batch
              << ")\n";
    first->terminate();
    second->terminate();
    first->waitForFinished(10000);
    second->waitForFinished(10000);
}

TEST(RelayDatabaseRestartTest, TheRelaySurvivesADatabaseRestartMidStreamAndLosesNothing)
{
    PrivateCluster cluster;
    cluster.start();
    if (::testing::Test::HasFatalFailure())
        return;
    constexpr int Rows = 6000;
    const QString exchange = unique("keel.chaos");
    Consumer consumer(testBroker(), exchange, QStringLiteral("#"), unique("keel-chaos-db"));
    {
        auto connection = LibpqConnection::open(cluster.settings());
        ASSERT_TRUE(connection.ok());
        ASSERT_TRUE(enqueue(*connection, 0, Rows / 2, 40).ok());
    }
    auto relay = spawnRelay(cluster.settings(), exchange, RelayLog::ReadByTheTest);
    ASSERT_TRUE(waitUntil([&] { return unpublished(cluster.settings()) < Rows / 2 - 500; }, 60000));
    ASSERT_TRUE(cluster.server().stopImmediately().ok());
    // The database comes back only once the relay has found it gone.
    QByteArray said;
    ASSERT_TRUE(waitUntil(
        [&] {
            relay->waitForReadyRead(100);
            said += relay->readAll();
            return said.contains("keel relay: cannot publish");
        },
        30000))
        << said.constData();
    ASSERT_TRUE(cluster.server().start().ok());
    {
        auto connection = LibpqConnection::open(cluster.settings());
        ASSERT_TRUE(connection.ok());
        ASSERT_TRUE(enqueue(*connection, Rows / 2, Rows / 2, 40).ok());
    }
    EXPECT_TRUE(waitUntil([&] { return unpublished(cluster.settings()) == 0; }, 120000))
        << "the relay did not come back after the restart";
    EXPECT_EQ(relay->state(), QProcess::Running) << "the relay reconnects; it does not exit";
    const Delivery delivery = drain(consumer, cluster.settings(), Rows);
    EXPECT_EQ(delivery.distinct, Rows);
    EXPECT_LE(delivery.messages - delivery.distinct, 2 * Batch);
    EXPECT_EQ(delivery.outOfOrder, 0);
    EXPECT_EQ(delivery.applied, Rows);
    relay->terminate();
    relay->waitForFinished(10000);
}

} // namespace keel::test
