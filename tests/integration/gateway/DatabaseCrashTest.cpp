// PostgreSQL itself dies mid-load (immediate shutdown: no checkpoint, as a
// crash would) on a durable cluster (fsync on), and comes back. The gateway
// reconnects by itself; clients that retry their keys until they get a final
// answer get exactly one charge per key, every charge they were told
// succeeded is there and captured, and every one they were told failed moved
// no money. (The simulated network keeps its memory in keel's database, so
// during the outage it cannot answer either: those charges fail cleanly, 402.)
#include "KeelProcess.h"
#include "PrivateCluster.h"
#include "WaitUntil.h"

#include "core/db/ConnectionSettings.h"
#include "core/db/LibpqConnection.h"
#include "core/ledger/Ledger.h"
#include "core/merchant/MerchantStore.h"
#include "core/net/HttpClient.h"
#include "devkit/servers/EmbeddedCluster.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <utility>
#include <vector>

using namespace keel;
using keel::test::keelBinary;
using keel::test::PrivateCluster;
using keel::test::runKeel;
using keel::test::waitUntil;

namespace {

class DatabaseCrashTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_cluster.start();
        if (HasFatalFailure())
            return;
        m_settings = m_cluster.settings();
        auto connection = LibpqConnection::open(m_settings);
        ASSERT_TRUE(connection.ok());
        auto merchant = MerchantStore(*connection).create(QStringLiteral("Crash"), {});
        ASSERT_TRUE(merchant.ok());
        m_apiKey = merchant->apiKey.toLatin1();
    }
    void TearDown() override
    {
        if (m_gateway) {
            m_gateway->kill();
            m_gateway->waitForFinished();
        }
    }
    QString startGateway()
    {
        m_gateway = std::make_unique<QProcess>();
        // Nobody reads a pipe for stderr here: a full one would block the gateway.
        m_gateway->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_gateway->start(keelBinary(),
                         {QStringLiteral("gateway"), QStringLiteral("--db"), m_settings.conninfo(),
                          QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                          QStringLiteral("--lock-timeout"), QStringLiteral("1000"),
                          QStringLiteral("--sim-latency"), QStringLiteral("5")});
        QString url;
        waitUntil(
            [&] {
                m_gateway->waitForReadyRead(50);
                while (m_gateway->canReadLine()) {
                    const QString line = QString::fromLocal8Bit(m_gateway->readLine()).trimmed();
                    if (line.startsWith(QLatin1String("KEEL_HTTP=")))
                        url = line.mid(10);
                }
                return !url.isEmpty();
            },
            30000);
        return url;
    }
    QString scalar(const QByteArray &sql)
    {
        auto connection = LibpqConnection::open(m_settings);
        return connection ? connection->scalar(sql).value() : QString();
    }

    PrivateCluster m_cluster;
    ConnectionSettings m_settings;
    QString countInState(const QHash<QByteArray, QString> &charges, const char *state)
    {
        QStringList ids;
        for (const QString &id : charges)
            ids << u'\'' + id + u'\'';
        return scalar("SELECT count(*) FROM keel.charges c JOIN keel.payment_state s ON "
                      "s.charge_id = c.id WHERE s.state = '" +
                      QByteArray(state) + "' AND c.public_id IN (" +
                      (ids.isEmpty() ? QByteArray("''") : ids.join(u',').toLatin1()) + ")");
    }

    // Every charge told succeeded is captured, every one told failed failed,
    // every one told pending settled either way; what was captured is what
    // the network carried out (once, and kept through the crash).
    void expectTheBooksMatchTheAnswers(const QHash<QByteArray, QString> &acknowledged,
                                       const QHash<QByteArray, QString> &declined,
                                       const QHash<QByteArray, QString> &inDoubt)
    {
        EXPECT_TRUE(waitUntil(
            [&] {
                return scalar("SELECT count(*) FROM keel.payment_state WHERE state IN "
                              "('Authorizing', 'Capturing')") == QLatin1String("0");
            },
            60000))
            << "the reconciler settles what the crash left in doubt";
        EXPECT_EQ(countInState(acknowledged, "Captured"), QString::number(acknowledged.size()));
        EXPECT_EQ(countInState(declined, "Failed"), QString::number(declined.size()));
        const qint64 settledCaptured = countInState(inDoubt, "Captured").toLongLong();
        EXPECT_EQ(settledCaptured + countInState(inDoubt, "Failed").toLongLong(), inDoubt.size());
        const qint64 captured = acknowledged.size() + settledCaptured;
        EXPECT_EQ(scalar("SELECT sum(amount_captured) FROM keel.charges"),
                  QString::number(1000 * captured));
        EXPECT_EQ(
            scalar("SELECT count(*) FROM keel.sim_channel_operations WHERE outcome = 'approved'"),
            QString::number(captured));
        auto connection = LibpqConnection::open(m_settings);
        ASSERT_TRUE(connection.ok());
        auto audit = Ledger::audit(*connection);
        ASSERT_TRUE(audit.ok());
        EXPECT_TRUE(audit->violations.isEmpty()) << qPrintable(audit->violations.join(u'\n'));
    }

    // What the clients of the crash test were told, shared between their
    // threads; checked on the test's own thread once they are joined.
    struct CrashLoad {
        QMutex mutex;
        QHash<QByteArray, QString> acknowledged; // key -> the charge id the client was told
        QHash<QByteArray, QString> declined;     // key -> a charge the client was told failed
        // key -> a charge told "pending": the channel's answer was lost in the
        // crash, and the reconciler settles it by asking the channel
        QHash<QByteArray, QString> inDoubt;
        QStringList lastRefusals;
        std::atomic<int> done{0}, refusedDuringOutage{0};
        // Set as PostgreSQL is stopped; each client counts itself once when
        // told 503 (the database is unavailable) after that.
        std::atomic<bool> down{false};
        std::atomic<int> clientsRefusedWhileDown{0};
    };

    // One client's key, retried until the answer is not "try again";
    // `refusedWhileDown` is the client's own, set the first time it is told
    // 503 during the outage.
    void chargeUntilAnswered(HttpClient &http, const QByteArray &key, CrashLoad &load,
                             bool &refusedWhileDown)
    {
        for (int attempt = 0; attempt < 400; ++attempt) {
            const HttpReply reply =
                http.request("POST", "/v1/charges",
                             {{"Authorization", "Bearer " + m_apiKey},
                              {"Idempotency-Key", key},
                              {"Content-Type", "application/x-www-form-urlencoded"}},
                             "amount=1000&currency=usd&source=tok_visa");
            const QJsonObject body = QJsonDocument::fromJson(reply.body).object();
            if (reply.status == 200) {
                const QMutexLocker lock(&load.mutex);
                const bool pending =
                    body.value(QStringLiteral("status")).toString() == QLatin1String("pending");
                (pending ? load.inDoubt : load.acknowledged)
                    .insert(key, body.value(QStringLiteral("id")).toString());
                break;
            }
            if (reply.status == 402) { // final: no effect, try a new charge
                const QMutexLocker lock(&load.mutex);
                load.declined.insert(key, body.value(QStringLiteral("error"))
                                              .toObject()
                                              .value(QStringLiteral("charge"))
                                              .toString());
                break;
            }
            ++load.refusedDuringOutage;
            if (load.down && reply.status == 503 && !std::exchange(refusedWhileDown, true))
                ++load.clientsRefusedWhileDown;
            if (attempt == 399) {
                const QMutexLocker lock(&load.mutex);
                load.lastRefusals << QString::number(reply.status) + u' ' +
                                         QString::fromUtf8(reply.body);
            }
            QThread::msleep(50);
        }
        ++load.done;
    }

    QByteArray m_apiKey;
    std::unique_ptr<QProcess> m_gateway;
};

TEST_F(DatabaseCrashTest, AcknowledgedChargesSurviveAnImmediateShutdownMidLoad)
{
    const QString url = startGateway();
    ASSERT_FALSE(url.isEmpty());
    QString host;
    int port = 0;
    HttpClient::parseUrl(url, &host, &port);
    constexpr int Clients = 6;
    constexpr int KeysEach = 40;
    CrashLoad load;
    std::vector<std::thread> clients;
    for (int c = 0; c < Clients; ++c)
        clients.emplace_back([&, c] {
            HttpClient http(host, port, 20000);
            bool refusedWhileDown = false;
            for (int k = 0; k < KeysEach; ++k)
                chargeUntilAnswered(http,
                                    "crash-" + QByteArray::number(c) + '-' + QByteArray::number(k),
                                    load, refusedWhileDown);
        });
    // No ASSERT until the clients are joined: a test that returned with
    // their threads running would end the whole test binary.
    const bool loaded =
        waitUntil([&] { return load.done.load() >= Clients * KeysEach / 3; }, 60000);
    load.down = true;
    const bool stopped = m_cluster.server().stopImmediately().ok();
    // The outage lasts until half the clients have been told the database is
    // unavailable and are retrying.
    const bool overlapped =
        stopped &&
        waitUntil([&] { return load.clientsRefusedWhileDown.load() >= Clients / 2; }, 30000);
    const bool restarted = m_cluster.server().start().ok();
    for (std::thread &client : clients)
        client.join();
    ASSERT_TRUE(loaded && stopped && restarted);
    EXPECT_TRUE(overlapped) << load.clientsRefusedWhileDown.load()
                            << " clients were told 503 while PostgreSQL was down";

    EXPECT_EQ(load.acknowledged.size() + load.declined.size() + load.inDoubt.size(),
              Clients * KeysEach)
        << "every key got an answer: " << qPrintable(load.lastRefusals.join(u'\n'));
    EXPECT_GT(load.refusedDuringOutage.load(), 0) << "the outage did not overlap the load";
    EXPECT_EQ(m_gateway->state(), QProcess::Running) << "the gateway reconnects by itself";
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QString::number(Clients * KeysEach));
    expectTheBooksMatchTheAnswers(load.acknowledged, load.declined, load.inDoubt);
    RecordProperty("refused_during_outage", load.refusedDuringOutage.load());
    RecordProperty("declined_during_outage", int(load.declined.size()));
    RecordProperty("in_doubt_after_the_crash", int(load.inDoubt.size()));
}

// A server that dies with TCP clients connected leaves its port with sockets
// waiting out TIME_WAIT; it must come back on that port, or every DSN naming
// it breaks (the chaos suite's processes could not reconnect after a crash).
TEST_F(DatabaseCrashTest, TheServerComesBackOnItsPortAfterACrashWithTcpClients)
{
    const int port = m_cluster.server().port();
    QFile passwordFile(
        QDir(m_cluster.server().dataDirectory()).filePath(QStringLiteral("keel.password")));
    ASSERT_TRUE(passwordFile.open(QIODevice::ReadOnly));
    ConnectionSettings tcp = m_settings;
    tcp.set(QStringLiteral("host"), QStringLiteral("127.0.0.1"));
    tcp.set(QStringLiteral("port"), QString::number(port));
    tcp.set(QStringLiteral("password"), QString::fromLatin1(passwordFile.readAll().trimmed()));
    auto client = LibpqConnection::open(tcp);
    ASSERT_TRUE(client.ok()) << qPrintable(client.error().message);
    ASSERT_TRUE(client->exec("SELECT 1").ok());
    ASSERT_TRUE(m_cluster.server().stopImmediately().ok());
    ASSERT_TRUE(m_cluster.server().start().ok());
    EXPECT_EQ(m_cluster.server().port(), port);
    EXPECT_TRUE(LibpqConnection::open(tcp).ok()) << "the same DSN reaches it again";
}

} // namespace
