#include "GatewayTest.h"
#include "WaitUntil.h"

#include "core/db/LibpqConnection.h"
#include "core/ledger/Ledger.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QThread>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

using namespace keel;
using keel::test::GatewayTest;

namespace {

const QByteArray Charge = "amount=2500&currency=eur&source=tok_visa";

QJsonObject json(const QByteArray &body)
{
    return QJsonDocument::fromJson(body).object();
}

} // namespace

class GatewayConcurrencyTest : public GatewayTest {};

TEST_F(GatewayConcurrencyTest, SixtyFourRequestsWithOneKeyAcrossTwoGatewaysMakeOneCharge)
{
    // The channel takes 300 ms, so most duplicates arrive while the first is in flight.
    QString urlA, urlB;
    auto a = spawnGateway({QStringLiteral("--sim-latency"), QStringLiteral("300")}, &urlA);
    auto b = spawnGateway({QStringLiteral("--sim-latency"), QStringLiteral("300")}, &urlB);
    ASSERT_FALSE(urlA.isEmpty());
    ASSERT_FALSE(urlB.isEmpty());

    struct Answer {
        int status;
        QByteArray body;
        QByteArray retryAfter;
        QByteArray replayed;
    };
    std::vector<Answer> answers(64);
    std::vector<std::thread> clients;
    std::atomic<int> ready{0};
    for (int i = 0; i < 64; ++i) {
        clients.emplace_back([&, i] {
            QString host;
            int port = 0;
            HttpClient::parseUrl(i % 2 ? urlA : urlB, &host, &port);
            HttpClient client(host, port);
            ++ready;
            while (ready.load() < 64)
                std::this_thread::yield();
            const HttpReply reply = post("/v1/charges", Charge, "one-key-64", {}, &client);
            answers[size_t(i)] = {reply.status, reply.body, reply.header("retry-after"),
                                  reply.header("idempotent-replayed")};
        });
    }
    for (std::thread &client : clients)
        client.join();

    // Whatever the interleaving: one charge, one posting, and each answer is
    // either the stored response or a 409 asking to retry later.
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QStringLiteral("1"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_transactions"), QStringLiteral("1"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.sim_channel_operations"), QStringLiteral("1"));
    const QByteArray stored =
        scalar("SELECT convert_from(response_body, 'UTF8') FROM keel.idempotency_keys").toUtf8();
    ASSERT_TRUE(
        json(stored).value(QStringLiteral("id")).toString().startsWith(QLatin1String("ch_")));
    int successes = 0, conflicts = 0;
    for (const Answer &answer : answers) {
        if (answer.status == 200) {
            EXPECT_EQ(answer.body, stored);
            ++successes;
        } else {
            EXPECT_EQ(answer.status, 409) << answer.body.constData();
            EXPECT_GE(answer.retryAfter.toInt(), 1);
            ++conflicts;
        }
    }
    EXPECT_GE(successes, 1);
    EXPECT_GE(conflicts, 1) << "the test did not manage to overlap requests";
    RecordProperty("successes", successes);
    RecordProperty("conflicts", conflicts);

    // Once the first has finished, every retry is a replay.
    const HttpReply later = post(
        "/v1/charges", Charge, "one-key-64", {},
        std::make_unique<HttpClient>(QStringLiteral("127.0.0.1"), urlA.section(u':', -1).toInt())
            .get());
    EXPECT_EQ(later.status, 200);
    EXPECT_EQ(later.body, stored);
    EXPECT_EQ(later.header("idempotent-replayed"), QByteArray("true"));
    a->kill();
    b->kill();
    a->waitForFinished();
    b->waitForFinished();
}

// Many clients, many keys, two gateway processes: charges (some authorized
// then captured), duplicate sends of each key to both gateways at once, and
// per captured charge two refunds under different keys racing for more than
// half of it. What the clients were told adds up to what the books say.
TEST_F(GatewayConcurrencyTest, ManyKeysAcrossTwoGatewaysAddUpInTheLedger)
{
    QString urlA, urlB;
    auto a = spawnGateway({QStringLiteral("--sim-latency"), QStringLiteral("20")}, &urlA);
    auto b = spawnGateway({QStringLiteral("--sim-latency"), QStringLiteral("20")}, &urlB);
    ASSERT_FALSE(urlA.isEmpty());
    ASSERT_FALSE(urlB.isEmpty());
    constexpr int Clients = 12;
    constexpr int Orders = 6; // per client
    std::atomic<qint64> captured{0}, refunded{0}, racesWon{0}, races{0};
    std::vector<std::thread> clients;
    for (int c = 0; c < Clients; ++c) {
        clients.emplace_back([&, c] {
            const auto client = [](const QString &url) {
                QString host;
                int port = 0;
                HttpClient::parseUrl(url, &host, &port);
                return std::make_unique<HttpClient>(host, port, 30000);
            };
            auto toA = client(urlA), toB = client(urlB);
            for (int o = 0; o < Orders; ++o) {
                const QByteArray key =
                    "many-" + QByteArray::number(c) + '-' + QByteArray::number(o);
                const bool later = o % 2 == 1; // authorize now, capture later
                const QByteArray body = "amount=1000&currency=eur&source=tok_visa" +
                                        QByteArray(later ? "&capture=false" : "");
                // The same key sent to both gateways at once; either may win.
                HttpReply twin;
                std::thread duplicate(
                    [&] { twin = post("/v1/charges", body, key, {}, toB.get()); });
                HttpReply reply = post("/v1/charges", body, key, {}, toA.get());
                duplicate.join();
                if (reply.status != 200)
                    reply = twin;
                for (int retry = 0; reply.status == 409 && retry < 50; ++retry) {
                    QThread::msleep(50);
                    reply = post("/v1/charges", body, key, {}, toA.get());
                }
                ASSERT_EQ(reply.status, 200) << reply.body.constData();
                const QByteArray id =
                    json(reply.body).value(QStringLiteral("id")).toString().toLatin1();
                if (later) {
                    const HttpReply capture =
                        post("/v1/charges/" + id + "/capture", {}, key + "-capture", {}, toB.get());
                    ASSERT_EQ(capture.status, 200) << capture.body.constData();
                }
                captured += 1000;
                // Two refunds of 600 race; only one can fit.
                HttpReply second;
                std::thread rival([&] {
                    second = post("/v1/refunds", "charge=" + id + "&amount=600", key + "-refund-b",
                                  {}, toB.get());
                });
                const HttpReply first = post("/v1/refunds", "charge=" + id + "&amount=600",
                                             key + "-refund-a", {}, toA.get());
                rival.join();
                int won = 0;
                for (const HttpReply &refund : {first, second}) {
                    if (refund.status == 200 && json(refund.body).value(QStringLiteral("status")) ==
                                                    QStringLiteral("succeeded"))
                        ++won;
                    else
                        EXPECT_TRUE(refund.status == 400 || refund.status == 409)
                            << refund.status << ' ' << refund.body.constData();
                }
                EXPECT_LE(won, 1);
                racesWon += won;
                ++races;
                refunded += 600 * won;
            }
        });
    }
    for (std::thread &client : clients)
        client.join();

    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QString::number(Clients * Orders));
    EXPECT_EQ(scalar("SELECT sum(amount_captured) FROM keel.charges"),
              QString::number(captured.load()));
    EXPECT_EQ(scalar("SELECT sum(amount_refunded) FROM keel.charges"),
              QString::number(refunded.load()));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges WHERE amount_refunded > amount_captured"),
              QStringLiteral("0"));
    // The merchant is owed what was captured less what was refunded.
    EXPECT_EQ(scalar("SELECT -sum(e.amount) FROM keel.ledger_entries e JOIN keel.ledger_accounts "
                     "a ON a.id = e.account_id WHERE a.code LIKE 'merchant_payable:%'"),
              QString::number(captured.load() - refunded.load()));
    auto connection = LibpqConnection::open(settings());
    auto audit = Ledger::audit(*connection);
    ASSERT_TRUE(audit.ok());
    EXPECT_TRUE(audit->violations.isEmpty()) << qPrintable(audit->violations.join(u'\n'));
    RecordProperty("refund_races_won", int(racesWon.load()));
    RecordProperty("refund_races", int(races.load()));
    a->kill();
    b->kill();
    a->waitForFinished();
    b->waitForFinished();
}

class GatewayRecoveryTest : public GatewayTest,
                            public ::testing::WithParamInterface<const char *> {};

// A gateway that dies holding a key does not block it: after the lock timeout
// another gateway takes the key over, asks the channel what happened, and
// finishes the payment exactly once.
TEST_P(GatewayRecoveryTest, CrashBetweenReserveAndCompleteIsRecovered)
{
    crashGatewayAt(GetParam(), "/v1/charges", Charge, "crash-key");
    ASSERT_FALSE(HasFailure());
    EXPECT_EQ(scalar("SELECT status FROM keel.idempotency_keys"), QStringLiteral("processing"));
    EXPECT_EQ(scalar("SELECT state FROM keel.payment_state"), QStringLiteral("Authorizing"));

    QString survivorUrl;
    auto survivor =
        spawnGateway({QStringLiteral("--lock-timeout"), QStringLiteral("500")}, &survivorUrl);
    const auto toSurvivor = clientFor(survivorUrl);
    // Once the lock has timed out, the retry settles the payment.
    ASSERT_TRUE(keel::test::waitUntil([&] {
        return scalar("SELECT locked_at < now() - interval '500 ms' FROM keel.idempotency_keys") ==
               QLatin1String("t");
    }));
    const HttpReply recovered = post("/v1/charges", Charge, "crash-key", {}, toSurvivor.get());
    ASSERT_EQ(recovered.status, 200) << recovered.body.constData();
    EXPECT_EQ(json(recovered.body).value(QStringLiteral("status")).toString(),
              QStringLiteral("succeeded"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QStringLiteral("1"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.sim_channel_operations"), QStringLiteral("1"));
    EXPECT_EQ(scalar("SELECT status || '/' || recovered_count FROM keel.idempotency_keys"),
              QStringLiteral("done/1"));
    auto session = LibpqConnection::open(settings());
    auto audit = Ledger::audit(*session);
    ASSERT_TRUE(audit.ok());
    EXPECT_EQ(audit->transactions, 1);
    EXPECT_TRUE(audit->violations.isEmpty()) << qPrintable(audit->violations.join(u'\n'));

    const HttpReply replay = post("/v1/charges", Charge, "crash-key", {}, toSurvivor.get());
    EXPECT_EQ(replay.body, recovered.body);
    survivor->kill();
    survivor->waitForFinished();
}

// Before the channel was called (it never saw the charge), and after it
// answered but before the answer was recorded.
INSTANTIATE_TEST_SUITE_P(CrashPoints, GatewayRecoveryTest,
                         ::testing::Values("charge_reserved", "charge_channel_answered"));
