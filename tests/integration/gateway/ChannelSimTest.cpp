// The channel as its own process: `keel channel-sim` reached over HTTP by
// the gateway (`--channel`), sending its results back to the gateway's
// Alipay endpoint signed with its own key, and killed like any process.

#include "GatewayTest.h"
#include "KeelProcess.h"
#include "SigningFiles.h"
#include "WaitUntil.h"

#include "core/api/StripeReplies.h"
#include "core/channel/HttpChannel.h"
#include "core/channel/SimulatedChannel.h"
#include "core/db/LibpqConnection.h"
#include "core/money/Currency.h"
#include "core/net/LoopbackPort.h"
#include "core/payment/PaymentContext.h"
#include "core/payment/Reconciler.h"
#include "core/reference/CurrencyStore.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <QThread>

#include <gtest/gtest.h>

using namespace keel;
using keel::test::startKeel;
using keel::test::waitUntil;

using keel::test::jsonOf;
using keel::test::signingFile;

namespace {

class ChannelSimTest : public keel::test::GatewayTest {
protected:
    void SetUp() override
    {
        GatewayTest::SetUp();
        if (HasFatalFailure())
            return;
        ChannelKeyFiles files;
        files.alipayPublicKey = signingFile("alipay.pub");
        Result<ChannelKeys> keys = ChannelKeys::load(files);
        ASSERT_TRUE(keys.ok()) << qPrintable(keys.error().message);
        m_options.channelKeys = std::make_shared<const ChannelKeys>(*std::move(keys));
        m_simPort = bindLoopback();
        ASSERT_NE(m_simPort, 0);
        Result<ChannelFactory> channel = httpChannel(simUrl(), 1000);
        ASSERT_TRUE(channel.ok());
        m_remoteChannel = *channel;
        startGateway();
    }

    void TearDown() override
    {
        if (m_sim) {
            m_sim->terminate();
            m_sim->waitForFinished(10000);
        }
        GatewayTest::TearDown();
    }

    QString simUrl() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_simPort); }

    // `keel channel-sim` on the port the gateway was given; notifying the
    // gateway unless `notify` is false.
    void startSim(const QStringList &behaviour = {}, bool notify = true)
    {
        QStringList arguments{QStringLiteral("channel-sim"), QStringLiteral("--db"),
                              settings().conninfo(), QStringLiteral("--listen"),
                              QStringLiteral("127.0.0.1:%1").arg(m_simPort)};
        if (notify)
            arguments << QStringLiteral("--notify")
                      << m_gateway->url() + QStringLiteral("/v1/channels/alipay/notify")
                      << QStringLiteral("--alipay-private-key") << signingFile("alipay.key")
                      << QStringLiteral("--notify-delay") << QStringLiteral("0");
        QString url;
        m_sim = startKeel(arguments + behaviour, QStringLiteral("KEEL_CHANNEL"), &url);
        ASSERT_EQ(url, simUrl());
    }

    HttpReply charge(const QByteArray &key, const QByteArray &source = "tok_visa")
    {
        return post("/v1/charges", "amount=1999&currency=cny&source=" + source, key);
    }

    // The channel notifies at once (--notify-delay 0), and writing its
    // notification can collide with writing the charge's own answer: the
    // gateway then says 409 "retry shortly", and a client retries its key.
    HttpReply chargeAsAClientWould(const QByteArray &key)
    {
        // A request whose answer could not be written leaves its key to be
        // taken over once its holder is presumed dead (the store's lock
        // timeout, 30 s): a client honouring Retry-After waits that long.
        HttpReply reply = charge(key);
        for (int retry = 0; retry < 80 && reply.status == 409; ++retry) {
            QThread::msleep(retry < 20 ? 100 : 500);
            reply = charge(key);
        }
        return reply;
    }

    QString stateOf(const QString &chargeId)
    {
        return scalar("SELECT s.state FROM keel.payment_state s JOIN keel.charges c "
                      "ON c.id = s.charge_id WHERE c.public_id = '" +
                      chargeId.toLatin1() + "'");
    }

    // One reconciler pass, as the gateway's login, asking the channel over HTTP.
    Reconciler::Report reconcileOverHttp()
    {
        auto session = LibpqConnection::open(m_serviceLogin);
        EXPECT_TRUE(session.ok());
        auto currencies = loadCurrencies(*session);
        EXPECT_TRUE(currencies.ok());
        if (!session || !currencies)
            return {};
        PaymentContext context;
        context.settings = m_serviceLogin;
        context.channel =
            std::make_shared<HttpChannel>(QStringLiteral("127.0.0.1"), m_simPort, 1000);
        context.currencies = *currencies;
        StripeReplies replies;
        auto report = Reconciler(context, *session, replies).runOnce(0);
        EXPECT_TRUE(report.ok()) << qPrintable(report.error().message);
        return report ? *report : Reconciler::Report{};
    }

    int m_simPort = 0;
    std::unique_ptr<QProcess> m_sim;
};

} // namespace

TEST_F(ChannelSimTest, AChargeCrossesHttpAndTheChannelsSignedResultConfirmsIt)
{
    startSim();
    const HttpReply reply = chargeAsAClientWould("sim-1");
    ASSERT_EQ(reply.status, 200) << reply.body.constData();
    const QString id = jsonOf(reply).value(QLatin1String("id")).toString();
    EXPECT_EQ(jsonOf(reply).value(QLatin1String("status")).toString(), QStringLiteral("succeeded"));
    EXPECT_EQ(scalar("SELECT outcome || ' ' || amount FROM keel.sim_channel_operations"),
              QStringLiteral("approved 1999"));
    // The channel's asynchronous result arrives, verifies, and agrees.
    EXPECT_TRUE(waitUntil([&] {
        return scalar("SELECT count(*) FROM keel.channel_notifications") == QLatin1String("1");
    }));
    // The notice races the answer it repeats: whichever settles the charge
    // first, the other agrees (the client above got 200 in the end either way).
    const QString notice = scalar("SELECT verdict || ' ' || amount || ' ' || currency || ' ' || "
                                  "reference FROM keel.channel_notifications");
    EXPECT_TRUE(notice == QStringLiteral("unchanged 1999 CNY ") + id ||
                notice == QStringLiteral("applied 1999 CNY ") + id)
        << notice.toStdString();
    EXPECT_EQ(stateOf(id), QStringLiteral("Captured"));
    // The channel's own id came back with the answer and with the notice:
    // whichever settled the charge kept it.
    EXPECT_EQ(scalar("SELECT channel_reference = 'sim_' || left(md5(public_id || '/authorize'), "
                     "24) FROM keel.charges"),
              QStringLiteral("t"));

    const HttpReply declined = charge("sim-2", "tok_chargeDeclined");
    EXPECT_EQ(declined.status, 402) << declined.body.constData();
}

TEST_F(ChannelSimTest, AnAnswerLostOnTheWayBackIsSettledByTheChannelsNotification)
{
    startSim({QStringLiteral("--sim-ambiguous-rate"), QStringLiteral("1")});
    const HttpReply reply = charge("sim-3");
    ASSERT_EQ(reply.status, 200) << reply.body.constData();
    EXPECT_EQ(jsonOf(reply).value(QLatin1String("status")).toString(), QStringLiteral("pending"));
    const QString id = jsonOf(reply).value(QLatin1String("id")).toString();
    // No reconciler runs here: the notification alone settles it (补单).
    EXPECT_TRUE(waitUntil([&] { return stateOf(id) == QLatin1String("Captured"); }))
        << qPrintable(stateOf(id));
    EXPECT_EQ(scalar("SELECT verdict FROM keel.channel_notifications"), QStringLiteral("applied"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("2"));
}

TEST_F(ChannelSimTest, WithoutANotificationTheReconcilerAsksTheChannelOverHttp)
{
    startSim({QStringLiteral("--sim-ambiguous-rate"), QStringLiteral("1")}, false);
    const HttpReply reply = charge("sim-4");
    const QString id = jsonOf(reply).value(QLatin1String("id")).toString();
    ASSERT_EQ(stateOf(id), QStringLiteral("Authorizing"));

    const Reconciler::Report report = reconcileOverHttp();
    EXPECT_EQ(report.resolved, 1);
    EXPECT_EQ(stateOf(id), QStringLiteral("Captured"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.channel_notifications"), QStringLiteral("0"));
}

TEST_F(ChannelSimTest, AKilledChannelChargesNothingAndItsRestartServesAgain)
{
    startSim();
    ASSERT_EQ(chargeAsAClientWould("sim-5").status, 200);
    m_sim->kill(); // SIGKILL
    ASSERT_TRUE(m_sim->waitForFinished(10000));

    // Refused before anything was sent. That request was not processed, but
    // keel cannot close the charge at a channel that is down, so it waits in
    // doubt rather than fail a payment a twin of the request might still make.
    const HttpReply refused = charge("sim-6");
    ASSERT_EQ(refused.status, 200) << refused.body.constData();
    EXPECT_EQ(jsonOf(refused).value(QLatin1String("status")).toString(), QStringLiteral("pending"));
    const QString doubtful = jsonOf(refused).value(QLatin1String("id")).toString();
    EXPECT_EQ(stateOf(doubtful), QStringLiteral("Authorizing"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("2"));

    startSim();
    const HttpReply again = chargeAsAClientWould("sim-7");
    EXPECT_EQ(again.status, 200) << again.body.constData();
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("4"));
    // Back up, the channel closes the doubtful one for the reconciler.
    EXPECT_EQ(reconcileOverHttp().resolved, 1);
    EXPECT_EQ(stateOf(doubtful), QStringLiteral("Failed"));
    EXPECT_EQ(scalar("SELECT outcome FROM keel.sim_channel_operations WHERE reference = '" +
                     doubtful.toLatin1() + "'"),
              QStringLiteral("closed"));
}

// 关单 over the wire: a close refuses the operation for good, and a close of
// an operation the network already processed answers what it did.
TEST_F(ChannelSimTest, ACloseOverHttpRefusesLateRequestsAndKeepsDoneOnes)
{
    startSim({}, false);
    HttpChannel channel(QStringLiteral("127.0.0.1"), m_simPort, 1000);
    const QString unseen = QStringLiteral("ch_closeUnseen0001");
    EXPECT_EQ(channel.close({unseen, QStringLiteral("authorize")}).outcome, ChannelOutcome::Closed);
    const ChannelRequest late{
        unseen, QStringLiteral("authorize"), 900, QStringLiteral("cny"), QStringLiteral("tok_visa"),
        true};
    EXPECT_EQ(channel.execute(late).outcome, ChannelOutcome::Closed);
    EXPECT_EQ(channel.query({unseen, QStringLiteral("authorize")}).outcome, ChannelOutcome::Closed);

    const QString done = QStringLiteral("ch_closeDone000001");
    ASSERT_EQ(channel
                  .execute({done, QStringLiteral("authorize"), 900, QStringLiteral("cny"),
                            QStringLiteral("tok_visa"), true})
                  .outcome,
              ChannelOutcome::Approved);
    EXPECT_EQ(channel.close({done, QStringLiteral("authorize")}).outcome, ChannelOutcome::Approved);
    EXPECT_EQ(scalar("SELECT string_agg(reference || ' ' || outcome || ' ' || amount, ', ' "
                     "ORDER BY reference) FROM keel.sim_channel_operations"),
              QStringLiteral("ch_closeDone000001 approved 900, ch_closeUnseen0001 closed 0"));
}

// A network deduplicates a request sent twice at once (a client's resend on
// a fresh connection while the first is still being processed): the second
// gets the first's outcome, never "unavailable" for an operation the network
// did process. Here the first is held uncommitted while the second arrives.
TEST_F(ChannelSimTest, ARequestRacingItsTwinGetsTheTwinsOutcome)
{
    Result<LibpqConnection> first = LibpqConnection::open(settings());
    ASSERT_TRUE(first.ok());
    ASSERT_TRUE(first
                    ->exec("BEGIN; INSERT INTO keel.sim_channel_operations (reference, "
                           "operation, outcome, amount, decline_code) VALUES "
                           "('ch_twinsRacing01', 'authorize', 'declined', 700, 'stolen_card')")
                    .ok());
    SimulatedChannel channel(settings(), {});
    ChannelResult second;
    QThread *twin = QThread::create([&] {
        second = channel.execute({QStringLiteral("ch_twinsRacing01"), QStringLiteral("authorize"),
                                  700, QStringLiteral("USD"), QStringLiteral("tok_visa"), true});
    });
    twin->start();
    // The twin waits on the first one's row before the first commits.
    ASSERT_TRUE(waitUntil(
        [&] {
            return scalar("SELECT count(*) FROM pg_locks WHERE NOT granted") != QLatin1String("0");
        },
        10000));
    ASSERT_TRUE(first->exec("COMMIT").ok());
    ASSERT_TRUE(twin->wait(10000));
    delete twin;
    EXPECT_EQ(second.outcome, ChannelOutcome::Declined) << qPrintable(second.message);
    EXPECT_EQ(second.declineCode, QStringLiteral("stolen_card"));
}
