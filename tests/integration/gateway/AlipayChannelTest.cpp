// keel as Alipay's client: the gateway's AlipayChannel calling `keel
// channel-sim --protocol alipay` over TLS, each call signed with the app's key
// and each answer verified with Alipay's, as it would call openapi.alipay.com.

#include "ChannelAdapterTest.h"
#include "KeelProcess.h"
#include "SigningFiles.h"

#include "core/channel/AlipayChannel.h"
#include "core/signing/ChannelKeys.h"
#include "devkit/sim/ChannelSimulator.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <gtest/gtest.h>

using namespace keel;
using keel::test::startKeel;

using keel::test::jsonOf;
using keel::test::signingFile;

namespace {

const QString AppId = QStringLiteral("2021000000000042");
// An Alipay payment code as a till's scanner reads it.
const QByteArray AuthCode = "284837283498234921";

class AlipayChannelTest : public keel::test::ChannelAdapterTest {
protected:
    AlipayChannelTest() : ChannelAdapterTest(QStringLiteral("alipay call ")) {}

    // The simulated Alipay in this process, over TLS, signing its answers
    // with `answerKey` and taking calls `appKey` verifies; then the gateway,
    // calling it with the app's key.
    void start(SimulatedChannelConfig behaviour = {}, const char *answerKey = "alipay.key",
               const char *appKey = "alipay-app.pub")
    {
        Result<RsaKey> app = readRsaKeyFile(signingFile(appKey), QStringLiteral("app"));
        Result<RsaKey> signing = readRsaKeyFile(signingFile(answerKey), QStringLiteral("alipay"));
        ASSERT_TRUE(app && signing);
        ChannelSimulatorOptions options;
        options.settings = settings();
        options.behaviour = behaviour;
        options.http.port = m_simPort;
        options.http.threads = 2;
        options.http.tlsCertificateFile = m_pki.serverCertificate();
        options.http.tlsKeyFile = m_pki.serverKey();
        options.alipayGateway = AlipayGatewayOptions{AppId, *app, *signing};
        Result<std::unique_ptr<ChannelSimulator>> simulator =
            ChannelSimulator::start(std::move(options));
        ASSERT_TRUE(simulator.ok()) << qPrintable(simulator.error().message);
        m_simulator = std::move(simulator).value();
        m_remoteChannel = alipay();
        ASSERT_TRUE(m_remoteChannel);
        startGateway();
    }

    ChannelFactory alipay()
    {
        AlipayChannelOptions options;
        // The certificate names localhost: Alipay is dialled by that name.
        options.gateway = QUrl(QStringLiteral("https://localhost:%1/gateway.do").arg(m_simPort));
        options.appId = AppId;
        Result<RsaKey> appKey = readRsaKeyFile(signingFile("alipay-app.key"), QStringLiteral("k"));
        Result<RsaKey> alipayKey = readRsaKeyFile(signingFile("alipay.pub"), QStringLiteral("k"));
        EXPECT_TRUE(appKey && alipayKey);
        if (!appKey || !alipayKey)
            return {};
        options.appPrivateKey = *appKey;
        options.alipayPublicKey = *alipayKey;
        options.timeoutMs = 2000;
        Result<ChannelFactory> channel = alipayChannel(std::move(options));
        EXPECT_TRUE(channel.ok()) << qPrintable(channel.error().message);
        return channel ? *channel : ChannelFactory{};
    }

    // How many calls of `method` reached the simulated Alipay.
    int calls(const char *method)
    {
        return ChannelAdapterTest::calls(QByteArray(method + QByteArray(" ")).constData());
    }

    HttpReply charge(const QByteArray &key, const QByteArray &source = AuthCode)
    {
        return ChannelAdapterTest::charge(key, source);
    }
};

} // namespace

// A barcode sale (alipay.trade.pay) and a partial refund (alipay.trade.refund
// under the trade's out_trade_no), each answered and verified over TLS; the
// charge keeps Alipay's trade_no and is Alipay's to reconcile.
TEST_F(AlipayChannelTest, ASaleAndItsRefundRunThroughAlipayOverTls)
{
    start();
    const HttpReply charged = charge("alipay-1");
    ASSERT_EQ(charged.status, 200) << charged.body.constData();
    EXPECT_EQ(jsonOf(charged).value(QLatin1String("status")).toString(),
              QStringLiteral("succeeded"));
    const QString id = jsonOf(charged).value(QLatin1String("id")).toString();
    EXPECT_FALSE(scalar("SELECT channel_reference FROM keel.charges").isEmpty());
    EXPECT_EQ(scalar("SELECT channel FROM keel.charges"), QStringLiteral("alipay"));

    const HttpReply refunded =
        post("/v1/refunds", "charge=" + id.toLatin1() + "&amount=500", "alipay-1-refund");
    ASSERT_EQ(refunded.status, 200) << refunded.body.constData();
    EXPECT_EQ(jsonOf(refunded).value(QLatin1String("status")).toString(),
              QStringLiteral("succeeded"));
    EXPECT_EQ(simRecord(), QStringLiteral("authorize approved 1999, refund approved 500"));
    EXPECT_EQ(calls("alipay.trade.pay"), 1);
    EXPECT_EQ(calls("alipay.trade.refund"), 1);
}

// Alipay's business refusal is a decline carrying its sub_code, once the
// trade it may have left open is cancelled: a copy of the request still on
// its way can no longer pay it.
TEST_F(AlipayChannelTest, ARefusedPaymentIsCancelledThenDeclinedWithAlipaysReason)
{
    start();
    const HttpReply declined = charge("alipay-2", "tok_chargeDeclinedInsufficientFunds");
    ASSERT_EQ(declined.status, 402) << declined.body.constData();
    EXPECT_EQ(jsonOf(declined)
                  .value(QLatin1String("error"))
                  .toObject()
                  .value(QLatin1String("decline_code"))
                  .toString(),
              QStringLiteral("buyer_balance_not_enough"));
    EXPECT_EQ(simRecord(), QStringLiteral("authorize declined 1999"));
    EXPECT_EQ(calls("alipay.trade.cancel"), 1);
    EXPECT_EQ(scalar("SELECT state FROM keel.payment_state"), QStringLiteral("Failed"));
}

// A refund Alipay refuses for a reason of the trade's own is final: the
// refund fails at once and the charge keeps its money.
TEST_F(AlipayChannelTest, ARefundAlipayRefusesFailsWithItsReason)
{
    SimulatedChannelConfig refusing;
    refusing.refundFailureRate = 1;
    start(refusing);
    const HttpReply charged = charge("alipay-5");
    ASSERT_EQ(charged.status, 200) << charged.body.constData();
    const QString id = jsonOf(charged).value(QLatin1String("id")).toString();
    const HttpReply refund =
        post("/v1/refunds", "charge=" + id.toLatin1() + "&amount=300", "alipay-5-refund");
    EXPECT_EQ(scalar("SELECT status FROM keel.refunds"), QStringLiteral("failed"))
        << refund.body.constData();
    EXPECT_EQ(stateOf(id), QStringLiteral("Captured"));
    EXPECT_EQ(calls("alipay.trade.refund"), 1);
}

// Every answer lost after Alipay acted: the payment and the refund wait in
// doubt, and the reconciler settles each by Alipay's own queries
// (alipay.trade.query, alipay.trade.fastpay.refund.query) — neither is sent twice.
TEST_F(AlipayChannelTest, InDoubtPaymentsAndRefundsAreSettledByAlipaysQueries)
{
    SimulatedChannelConfig losing;
    losing.ambiguousRate = 1;
    start(losing);
    const HttpReply charged = charge("alipay-3");
    const QString id = jsonOf(charged).value(QLatin1String("id")).toString();
    ASSERT_FALSE(id.isEmpty()) << charged.body.constData();
    ASSERT_EQ(stateOf(id), QStringLiteral("Authorizing"));
    EXPECT_EQ(reconcile().resolved, 1);
    ASSERT_EQ(stateOf(id), QStringLiteral("Captured"));

    const HttpReply refund =
        post("/v1/refunds", "charge=" + id.toLatin1() + "&amount=700", "alipay-3-refund");
    const QString refundId = jsonOf(refund).value(QLatin1String("id")).toString();
    ASSERT_FALSE(refundId.isEmpty()) << refund.body.constData();
    EXPECT_EQ(scalar("SELECT status FROM keel.refunds"), QStringLiteral("pending"));
    EXPECT_EQ(reconcile().resolved, 1);
    EXPECT_EQ(scalar("SELECT status FROM keel.refunds"), QStringLiteral("succeeded"));
    EXPECT_EQ(simRecord(), QStringLiteral("authorize approved 1999, refund approved 700"));
    EXPECT_EQ(calls("alipay.trade.pay"), 1);
    EXPECT_EQ(calls("alipay.trade.refund"), 1);
    EXPECT_GE(calls("alipay.trade.query"), 1);
    EXPECT_GE(calls("alipay.trade.fastpay.refund.query"), 1);
}

// A pay request Alipay answered "unavailable" may yet arrive. While its
// payment code could still pay, a cancel of a trade Alipay has never seen
// proves nothing and the payment stays in doubt; once the code is too old to
// pay with, the cancel closes it and the payment fails.
TEST_F(AlipayChannelTest, ATradeAlipayNeverSawFailsOnlyOnceItsPaymentCodeHasExpired)
{
    SimulatedChannelConfig busy;
    busy.errorRate = 1;
    start(busy);
    const HttpReply charged = charge("alipay-6");
    const QString id = jsonOf(charged).value(QLatin1String("id")).toString();
    ASSERT_FALSE(id.isEmpty()) << charged.body.constData();
    ASSERT_EQ(stateOf(id), QStringLiteral("Authorizing"));
    reconcile();
    EXPECT_EQ(stateOf(id), QStringLiteral("Authorizing"));
    EXPECT_EQ(calls("alipay.trade.cancel"), 1);

    scalar("UPDATE keel.charges SET created_at = now() - interval '20 minutes'");
    reconcile();
    EXPECT_EQ(stateOf(id), QStringLiteral("Failed"));
    EXPECT_EQ(calls("alipay.trade.pay"), 1);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("0"));
}

// A call signed with a key Alipay does not hold is rejected as sent; nothing
// can be learned or closed that way (the cancel keel tries is rejected too),
// so the payment stays in doubt rather than failing on an answer about nothing.
TEST_F(AlipayChannelTest, ACallAlipayCannotVerifyLeavesThePaymentInDoubt)
{
    start({}, "alipay.key", "alipay.pub");
    const HttpReply charged = charge("alipay-7");
    const QString id = jsonOf(charged).value(QLatin1String("id")).toString();
    ASSERT_FALSE(id.isEmpty()) << charged.body.constData();
    EXPECT_EQ(stateOf(id), QStringLiteral("Authorizing"));
    EXPECT_EQ(simRecord(), QString());
    EXPECT_EQ(calls("alipay.trade.pay"), 1);
    EXPECT_EQ(calls("alipay.trade.cancel"), 1);
}

// An answer Alipay's key did not sign is no answer, whatever it says: the
// payment stays in doubt rather than succeeding on a forger's word.
TEST_F(AlipayChannelTest, AnAnswerNotSignedByAlipayIsNotBelieved)
{
    start({}, "alipay-app.key");
    const HttpReply charged = charge("alipay-4");
    const QString id = jsonOf(charged).value(QLatin1String("id")).toString();
    ASSERT_FALSE(id.isEmpty()) << charged.body.constData();
    EXPECT_EQ(stateOf(id), QStringLiteral("Authorizing"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("0"));
}

// `keel gateway --channel alipay` with its keys as files: a charge through
// the process reaches the simulated Alipay it was pointed at.
TEST_F(AlipayChannelTest, TheGatewayCallsAlipayWithTheKeysItIsGiven)
{
    QString simUrl;
    m_sim = startKeel({QStringLiteral("channel-sim"), QStringLiteral("--db"), settings().conninfo(),
                       QStringLiteral("--listen"), QStringLiteral("127.0.0.1:%1").arg(m_simPort),
                       QStringLiteral("--tls-cert"), m_pki.serverCertificate(),
                       QStringLiteral("--tls-key"), m_pki.serverKey(), QStringLiteral("--protocol"),
                       QStringLiteral("alipay"), QStringLiteral("--alipay-app-id"), AppId,
                       QStringLiteral("--alipay-app-public-key"), signingFile("alipay-app.pub"),
                       QStringLiteral("--alipay-private-key"), signingFile("alipay.key")},
                      QStringLiteral("KEEL_CHANNEL"), &simUrl);
    ASSERT_FALSE(simUrl.isEmpty());
    QString url;
    auto gateway =
        spawnGateway({QStringLiteral("--channel"), QStringLiteral("alipay"),
                      QStringLiteral("--alipay-app-id"), AppId, QStringLiteral("--alipay-app-key"),
                      signingFile("alipay-app.key"), QStringLiteral("--alipay-public-key"),
                      signingFile("alipay.pub"), QStringLiteral("--alipay-gateway"),
                      QStringLiteral("https://localhost:%1/gateway.do").arg(m_simPort),
                      QStringLiteral("--channel-ca-file"), m_pki.caCertificate()},
                     &url);
    ASSERT_FALSE(url.isEmpty());
    const HttpReply charged = post("/v1/charges", "amount=2500&currency=cny&source=" + AuthCode,
                                   "alipay-cli", {}, clientFor(url, 10000).get());
    ASSERT_EQ(charged.status, 200) << charged.body.constData();
    EXPECT_EQ(simRecord(), QStringLiteral("authorize approved 2500"));
    gateway->terminate();
    gateway->waitForFinished(10000);
}

// Each missing piece is named before the gateway serves anything.
TEST_F(AlipayChannelTest, AGatewayMissingAnAlipayKeyDoesNotStart)
{
    const QStringList base{QStringLiteral("gateway"),
                           QStringLiteral("--db"),
                           m_serviceLogin.conninfo(),
                           QStringLiteral("--listen"),
                           QStringLiteral("127.0.0.1:0"),
                           QStringLiteral("--channel"),
                           QStringLiteral("alipay"),
                           QStringLiteral("--alipay-app-id"),
                           AppId};
    const keel::test::ProcessResult noKey = keel::test::runKeel(
        base + QStringList{QStringLiteral("--alipay-public-key"), signingFile("alipay.pub")});
    EXPECT_EQ(noKey.exitCode, 2);
    EXPECT_TRUE(noKey.err.contains(QLatin1String("--alipay-app-key"))) << qPrintable(noKey.err);
    // Alipay's public key where the app's private key belongs cannot sign.
    const keel::test::ProcessResult publicKey = keel::test::runKeel(
        base + QStringList{QStringLiteral("--alipay-public-key"), signingFile("alipay.pub"),
                           QStringLiteral("--alipay-app-key"), signingFile("alipay.pub")});
    EXPECT_EQ(publicKey.exitCode, 2);
    EXPECT_TRUE(publicKey.err.contains(QLatin1String("alipay-app-key")))
        << qPrintable(publicKey.err);
    // The app's private key where Alipay's public key belongs would let keel
    // believe answers it could have signed itself.
    const keel::test::ProcessResult swapped = keel::test::runKeel(
        base + QStringList{QStringLiteral("--alipay-public-key"), signingFile("alipay-app.key"),
                           QStringLiteral("--alipay-app-key"), signingFile("alipay-app.key")});
    EXPECT_EQ(swapped.exitCode, 2);
    EXPECT_TRUE(swapped.err.contains(QLatin1String("alipay-public-key")))
        << qPrintable(swapped.err);
    // Plain http:// to Alipay is refused like every other outgoing call.
    const keel::test::ProcessResult plain = keel::test::runKeel(
        base + QStringList{QStringLiteral("--alipay-public-key"), signingFile("alipay.pub"),
                           QStringLiteral("--alipay-app-key"), signingFile("alipay-app.key"),
                           QStringLiteral("--alipay-gateway"),
                           QStringLiteral("http://127.0.0.1:9/gateway.do")});
    EXPECT_EQ(plain.exitCode, 2);
    EXPECT_TRUE(plain.err.contains(QLatin1String("--alipay-gateway"))) << qPrintable(plain.err);
}
