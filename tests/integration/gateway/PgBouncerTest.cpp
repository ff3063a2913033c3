// keel gateway behind PgBouncer in transaction pooling mode: many gateway
// processes (and their threads) share a few server connections, and
// Idempotency-Keys still mean exactly one charge each, whichever gateway and
// whichever server connection each copy of a request lands on.

#include "GatewayTest.h"
#include "KeelProcess.h"
#include "TestPooler.h"

#include "core/db/LibpqConnection.h"
#include "core/ledger/Ledger.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QThread>

#include <atomic>
#include <thread>
#include <vector>

namespace keel::test {
namespace {

constexpr int Gateways = 4;
constexpr int ThreadsEach = 4;
constexpr int PoolSize = 3;
constexpr int Clients = 8;
constexpr int KeysEach = 15;

class PgBouncerTest : public GatewayTest {
protected:
    // Sends the key to `gateway` until a final answer; the charge id it names.
    QString chargeOnce(const QString &gateway, const QByteArray &key)
    {
        auto client = clientFor(gateway, 20000);
        for (int attempt = 0; attempt < 100; ++attempt) {
            const HttpReply reply = post("/v1/charges", "amount=1500&currency=usd&source=tok_visa",
                                         key, {}, client.get());
            if (reply.status == 200)
                return QJsonDocument::fromJson(reply.body)
                    .object()
                    .value(QStringLiteral("id"))
                    .toString();
            if (reply.status != 409 && reply.status < 500)
                return QStringLiteral("refused %1: %2")
                    .arg(reply.status)
                    .arg(QString::fromUtf8(reply.body));
            QThread::msleep(50);
        }
        return QStringLiteral("no final answer");
    }
};

TEST_F(PgBouncerTest, GatewaysSharingThreeServerConnectionsMakeOneChargePerKey)
{
    if (!TestPooler::available())
        GTEST_FAIL() << "pgbouncer is not installed (packaging/install-deps installs it)";
    const ConnectionSettings login = loginAs(QStringLiteral("keel_gateway"));
    TestPooler pooler(login, PoolSize);
    ASSERT_TRUE(pooler.started()) << qPrintable(pooler.error());

    std::vector<std::unique_ptr<QProcess>> gateways;
    QStringList urls;
    for (int i = 0; i < Gateways; ++i) {
        QString url;
        gateways.push_back(startKeel(
            {QStringLiteral("gateway"), QStringLiteral("--db"), pooler.settings().conninfo(),
             QStringLiteral("--transaction-pooler"), QStringLiteral("--listen"),
             QStringLiteral("127.0.0.1:0"), QStringLiteral("--threads"),
             QString::number(ThreadsEach), QStringLiteral("--sim-latency"), QStringLiteral("20")},
            QStringLiteral("KEEL_HTTP"), &url));
        ASSERT_FALSE(url.isEmpty());
        urls << url;
    }

    // How many server connections the pooler holds, sampled while the load runs.
    std::atomic<bool> loading{true};
    std::atomic<int> mostServerConnections{0};
    std::thread sampler([&] {
        auto connection = LibpqConnection::open(settings());
        while (connection && loading) {
            const int now = connection
                                ->scalar("SELECT count(*) FROM pg_stat_activity WHERE usename = '" +
                                         login.value(QStringLiteral("user")).toUtf8() + "'")
                                .value()
                                .toInt();
            mostServerConnections = std::max(mostServerConnections.load(), now);
            QThread::msleep(20);
        }
    });
    // Each key is sent twice at once, to two different gateways.
    QMutex mutex;
    QHash<QByteArray, QStringList> answers;
    std::vector<std::thread> clients;
    for (int c = 0; c < Clients; ++c)
        clients.emplace_back([&, c] {
            for (int k = 0; k < KeysEach; ++k) {
                const QByteArray key =
                    "pooled-" + QByteArray::number(c) + '-' + QByteArray::number(k);
                QString first, second;
                std::thread twin(
                    [&] { second = chargeOnce(urls.at((c + k + 1) % Gateways), key); });
                first = chargeOnce(urls.at((c + k) % Gateways), key);
                twin.join();
                const QMutexLocker lock(&mutex);
                answers.insert(key, {first, second});
            }
        });
    for (std::thread &client : clients)
        client.join();
    loading = false;
    sampler.join();

    ASSERT_EQ(answers.size(), Clients * KeysEach);
    QSet<QString> charges;
    for (auto it = answers.cbegin(); it != answers.cend(); ++it) {
        ASSERT_TRUE(it->at(0).startsWith(QLatin1String("ch_"))) << qPrintable(it->at(0));
        EXPECT_EQ(it->at(0), it->at(1)) << "both copies of " << it.key().constData();
        charges.insert(it->at(0));
    }
    EXPECT_EQ(charges.size(), Clients * KeysEach);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QString::number(Clients * KeysEach));
    EXPECT_EQ(scalar("SELECT sum(amount_captured) FROM keel.charges"),
              QString::number(1500 * Clients * KeysEach));
    // Sixteen gateway threads (each holding a client connection) shared the pool.
    EXPECT_GT(mostServerConnections.load(), 0);
    EXPECT_LE(mostServerConnections.load(), PoolSize);
    auto connection = LibpqConnection::open(settings());
    ASSERT_TRUE(connection.ok());
    auto audit = Ledger::audit(*connection);
    ASSERT_TRUE(audit.ok());
    EXPECT_TRUE(audit->violations.isEmpty()) << qPrintable(audit->violations.join(u'\n'));
    RecordProperty("most_server_connections", mostServerConnections.load());
}

} // namespace
} // namespace keel::test
