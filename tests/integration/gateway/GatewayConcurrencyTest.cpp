#include "GatewayTest.h"
#include "WaitUntil.h"

#include "core/db/LibpqConnection.h"
#include "core/ledger/Ledger.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QThread>

#include <QStringList>

#include <atomic>
#include <memory>
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

class GatewayConcurrencyTest : public GatewayTest {
protected:
    // What one client saw of one order; the test's own thread checks it.
    struct OrderOutcome {
        QStringList problems; // one line each
        qint64 captured = 0;
        qint64 refunded = 0;
        int refundsWon = 0;
    };
    struct TwoGateways {
        std::unique_ptr<HttpClient> toA, toB;
    };

    static std::unique_ptr<HttpClient> clientOf(const QString &url)
    {
        QString host;
        int port = 0;
        HttpClient::parseUrl(url, &host, &port);
        return std::make_unique<HttpClient>(host, port, 30000);
    }

    // The charge sent under one key to both gateways at once (either may win),
    // retried while it is in flight; its id, or empty after a problem.
    QByteArray chargeOnBoth(TwoGateways &gateways, const QByteArray &body, const QByteArray &key,
                            OrderOutcome &outcome)
    {
        HttpReply twin;
        std::thread duplicate(
            [&] { twin = post("/v1/charges", body, key, {}, gateways.toB.get()); });
        HttpReply reply = post("/v1/charges", body, key, {}, gateways.toA.get());
        duplicate.join();
        if (reply.status != 200)
            reply = twin;
        for (int retry = 0; reply.status == 409 && retry < 50; ++retry) {
            QThread::msleep(50);
            reply = post("/v1/charges", body, key, {}, gateways.toA.get());
        }
        if (reply.status != 200) {
            outcome.problems << QStringLiteral("charge %1: %2 %3")
                                    .arg(QString::fromLatin1(key))
                                    .arg(reply.status)
                                    .arg(QString::fromUtf8(reply.body));
            return {};
        }
        return json(reply.body).value(QStringLiteral("id")).toString().toLatin1();
    }

    // Two refunds of 600 of a 1000 charge race on the two gateways; only one fits.
    void raceTwoRefunds(TwoGateways &gateways, const QByteArray &id, const QByteArray &key,
                        OrderOutcome &outcome)
    {
        HttpReply second;
        std::thread rival([&] {
            second = post("/v1/refunds", "charge=" + id + "&amount=600", key + "-refund-b", {},
                          gateways.toB.get());
        });
        const HttpReply first = post("/v1/refunds", "charge=" + id + "&amount=600",
                                     key + "-refund-a", {}, gateways.toA.get());
        rival.join();
        for (const HttpReply &refund : {first, second}) {
            if (refund.status == 200 &&
                json(refund.body).value(QStringLiteral("status")) == QStringLiteral("succeeded"))
                ++outcome.refundsWon;
            else if (refund.status != 400 && refund.status != 409)
                outcome.problems << QStringLiteral("refund of %1: %2 %3")
                                        .arg(QString::fromLatin1(id))
                                        .arg(refund.status)
                                        .arg(QString::fromUtf8(refund.body));
        }
        outcome.refunded = 600 * outcome.refundsWon;
    }

    // One order: a charge of 1000 (half of them authorized, then captured),
    // then the refund race.
    OrderOutcome placeOrder(TwoGateways &gateways, const QByteArray &key, bool captureLater)
    {
        OrderOutcome outcome;
        const QByteArray body = "amount=1000&currency=eur&source=tok_visa" +
                                QByteArray(captureLater ? "&capture=false" : "");
        const QByteArray id = chargeOnBoth(gateways, body, key, outcome);
        if (id.isEmpty())
            return outcome;
        if (captureLater) {
            const HttpReply capture = post("/v1/charges/" + id + "/capture", {}, key + "-capture",
                                           {}, gateways.toB.get());
            if (capture.status != 200) {
                outcome.problems << QStringLiteral("capture of %1: %2 %3")
                                        .arg(QString::fromLatin1(id))
                                        .arg(capture.status)
                                        .arg(QString::fromUtf8(capture.body));
                return outcome;
            }
        }
        outcome.captured = 1000;
        raceTwoRefunds(gateways, id, key, outcome);
        return outcome;
    }
};

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
    std::vector<std::vector<OrderOutcome>> seen(Clients);
    std::vector<std::thread> clients;
    for (int c = 0; c < Clients; ++c)
        clients.emplace_back([&, c] {
            TwoGateways gateways{clientOf(urlA), clientOf(urlB)};
            for (int o = 0; o < Orders; ++o)
                seen[size_t(c)].push_back(placeOrder(
                    gateways, "many-" + QByteArray::number(c) + '-' + QByteArray::number(o),
                    o % 2 == 1));
        });
    for (std::thread &client : clients)
        client.join();

    qint64 captured = 0, refunded = 0;
    int racesWon = 0, races = 0;
    for (const std::vector<OrderOutcome> &orders : seen)
        for (const OrderOutcome &order : orders) {
            EXPECT_TRUE(order.problems.isEmpty()) << qPrintable(order.problems.join(u'\n'));
            EXPECT_LE(order.refundsWon, 1);
            captured += order.captured;
            refunded += order.refunded;
            racesWon += order.refundsWon;
            races += order.captured > 0 ? 1 : 0;
        }
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QString::number(Clients * Orders));
    EXPECT_EQ(scalar("SELECT sum(amount_captured) FROM keel.charges"), QString::number(captured));
    EXPECT_EQ(scalar("SELECT sum(amount_refunded) FROM keel.charges"), QString::number(refunded));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges WHERE amount_refunded > amount_captured"),
              QStringLiteral("0"));
    // The merchant is owed what was captured less what was refunded.
    EXPECT_EQ(scalar("SELECT -sum(e.amount) FROM keel.ledger_entries e JOIN keel.ledger_accounts "
                     "a ON a.id = e.account_id WHERE a.code LIKE 'merchant_payable:%'"),
              QString::number(captured - refunded));
    auto connection = LibpqConnection::open(settings());
    auto audit = Ledger::audit(*connection);
    ASSERT_TRUE(audit.ok());
    EXPECT_TRUE(audit->violations.isEmpty()) << qPrintable(audit->violations.join(u'\n'));
    RecordProperty("refund_races_won", racesWon);
    RecordProperty("refund_races", races);
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
