// The channel over TLS: `keel channel-sim` serving HTTPS with a certificate
// the test's own authority signed, and the gateway reaching it at an
// https:// --channel, verified as every outgoing call is.

#include "GatewayTest.h"
#include "KeelProcess.h"
#include "PlainHttpRefused.h"
#include "TestPki.h"

#include "core/channel/HttpChannel.h"
#include "core/net/ClientPool.h"
#include "core/net/LoopbackPort.h"
#include "core/net/TlsSession.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QUrl>

#include <gtest/gtest.h>

using namespace keel;
using keel::test::startKeel;

using keel::test::jsonOf;

namespace {

class ChannelTlsTest : public keel::test::GatewayTest {
protected:
    void SetUp() override
    {
        GatewayTest::SetUp();
        if (HasFatalFailure())
            return;
        ASSERT_TRUE(m_pki.ok());
        m_simPort = bindLoopback();
        ASSERT_NE(m_simPort, 0);
        // The certificate names localhost: the channel is dialled by that name.
        Result<ChannelFactory> channel =
            httpChannel(QStringLiteral("https://localhost:%1").arg(m_simPort), 2000);
        ASSERT_TRUE(channel.ok()) << qPrintable(channel.error().message);
        m_remoteChannel = *channel;
        startGateway();
        QString url;
        m_sim =
            startKeel({QStringLiteral("channel-sim"), QStringLiteral("--db"), settings().conninfo(),
                       QStringLiteral("--listen"), QStringLiteral("127.0.0.1:%1").arg(m_simPort),
                       QStringLiteral("--tls-cert"), m_pki.serverCertificate(),
                       QStringLiteral("--tls-key"), m_pki.serverKey()},
                      QStringLiteral("KEEL_CHANNEL"), &url);
        ASSERT_EQ(url, QStringLiteral("https://127.0.0.1:%1").arg(m_simPort));
    }

    void TearDown() override
    {
        if (m_sim) {
            m_sim->terminate();
            m_sim->waitForFinished(10000);
        }
        (void)TlsSession::trustAlso({});
        GatewayTest::TearDown();
    }

    HttpReply charge(const QByteArray &key)
    {
        return post("/v1/charges", "amount=1999&currency=cny&source=tok_visa", key);
    }

    keel::test::TestPki m_pki;
    int m_simPort = 0;
    std::unique_ptr<QProcess> m_sim;
};

} // namespace

// A charge and its refund cross to the channel over TLS, which the gateway
// verified against the authority it was told to trust.
TEST_F(ChannelTlsTest, AChargeAndItsRefundReachAChannelServingHttps)
{
    ASSERT_TRUE(TlsSession::trustAlso(m_pki.caCertificate()).isEmpty());
    const HttpReply charged = charge("tls-1");
    ASSERT_EQ(charged.status, 200) << charged.body.constData();
    EXPECT_EQ(jsonOf(charged).value(QLatin1String("status")).toString(),
              QStringLiteral("succeeded"));
    const QByteArray id = jsonOf(charged).value(QLatin1String("id")).toString().toLatin1();
    const HttpReply refunded = post("/v1/refunds", "charge=" + id + "&amount=500", "tls-1-refund");
    ASSERT_EQ(refunded.status, 200) << refunded.body.constData();
    EXPECT_EQ(jsonOf(refunded).value(QLatin1String("status")).toString(),
              QStringLiteral("succeeded"));
    EXPECT_EQ(scalar("SELECT string_agg(operation || ' ' || outcome || ' ' || amount, ', ' "
                     "ORDER BY operation) FROM keel.sim_channel_operations"),
              QStringLiteral("authorize approved 1999, refund approved 500"));
}

// A channel whose certificate no trusted authority signed gets nothing: the
// call fails before a byte of the request is sent, and the charge waits in
// doubt as for a channel that is down, never counted as made.
TEST_F(ChannelTlsTest, AChannelTheGatewayCannotVerifyIsSentNothing)
{
    ASSERT_TRUE(TlsSession::trustAlso({}).isEmpty()); // the system's authorities alone
    // Asked directly, the channel says why: the certificate, not a dead peer.
    HttpChannel direct(QStringLiteral("localhost"), m_simPort, 2000, true);
    ChannelRequest request;
    request.reference = QStringLiteral("ch_direct");
    request.operation = QStringLiteral("authorize");
    request.amount = 100;
    request.currency = QStringLiteral("cny");
    request.source = QStringLiteral("tok_visa");
    const ChannelResult result = direct.execute(request);
    EXPECT_EQ(result.outcome, ChannelOutcome::Failed);
    EXPECT_TRUE(result.message.contains(QLatin1String("not trusted")))
        << qPrintable(result.message);
    const HttpReply refused = charge("tls-2");
    ASSERT_EQ(refused.status, 200) << refused.body.constData();
    EXPECT_EQ(jsonOf(refused).value(QLatin1String("status")).toString(), QStringLiteral("pending"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.sim_channel_operations"), QStringLiteral("0"));
}

// A channel's private authority (`--channel-ca-file`) is trusted for the
// channel alone: the channel verifies through it, while the process's other
// calls (merchant notifications, participants) to a host it signed do not.
TEST_F(ChannelTlsTest, AChannelsOwnAuthorityIsTrustedForThatChannelAlone)
{
    ASSERT_TRUE(TlsSession::trustAlso({}).isEmpty()); // the system's authorities alone
    HttpChannel trusting(QStringLiteral("localhost"), m_simPort, 2000, true, m_pki.caCertificate());
    ChannelRequest request;
    request.reference = QStringLiteral("ch_ownAuthority01");
    request.operation = QStringLiteral("authorize");
    request.amount = 900;
    request.currency = QStringLiteral("cny");
    request.source = QStringLiteral("tok_visa");
    const ChannelResult approved = trusting.execute(request);
    EXPECT_EQ(approved.outcome, ChannelOutcome::Approved) << qPrintable(approved.message);

    HttpClient *notifier =
        pooledClient(QUrl(QStringLiteral("https://localhost:%1/").arg(m_simPort)), 2000);
    ASSERT_NE(notifier, nullptr);
    const HttpReply refused =
        notifier->request("GET", "/v1/operations/ch_ownAuthority01/authorize");
    EXPECT_EQ(refused.status, 0);
    EXPECT_EQ(refused.failure, HttpFailure::Unreachable);
    EXPECT_TRUE(refused.error.contains(QLatin1String("not trusted"))) << qPrintable(refused.error);

    const test::ProcessResult unreadable = test::runKeel(
        {QStringLiteral("gateway"), QStringLiteral("--db"), m_serviceLogin.conninfo(),
         QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--channel"),
         QStringLiteral("https://localhost:%1").arg(m_simPort), QStringLiteral("--channel-ca-file"),
         QStringLiteral("/nonexistent/ca.pem")});
    EXPECT_EQ(unreadable.exitCode, 2);
    EXPECT_TRUE(unreadable.err.contains(QLatin1String("channel-ca-file")))
        << qPrintable(unreadable.err);
}

// `keel gateway --tls-cert --tls-key` serves the API over HTTPS, and says
// so in the URL it prints; a certificate without its key is refused at
// start, naming the option.
TEST_F(ChannelTlsTest, TheGatewayServesHttpsWithTheCertificateItIsGiven)
{
    ASSERT_TRUE(TlsSession::trustAlso(m_pki.caCertificate()).isEmpty());
    QString url;
    std::unique_ptr<QProcess> gateway =
        spawnGateway({QStringLiteral("--tls-cert"), m_pki.serverCertificate(),
                      QStringLiteral("--tls-key"), m_pki.serverKey()},
                     &url);
    ASSERT_TRUE(url.startsWith(QLatin1String("https://127.0.0.1:"))) << qPrintable(url);
    HttpClient client(QStringLiteral("localhost"), url.section(u':', -1).toInt(), 5000, true);
    const HttpReply health = client.request("GET", "/healthz");
    EXPECT_EQ(health.status, 200) << qPrintable(health.error);
    const HttpReply again = client.request("GET", "/healthz");
    EXPECT_EQ(again.status, 200) << "a second request is served too: " << qPrintable(again.error);
    gateway->terminate();
    gateway->waitForFinished(10000);

    const test::ProcessResult halfConfigured =
        test::runKeel({QStringLiteral("gateway"), QStringLiteral("--db"), m_serviceLogin.conninfo(),
                       QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                       QStringLiteral("--tls-cert"), m_pki.serverCertificate()});
    EXPECT_NE(halfConfigured.exitCode, 0);
    EXPECT_TRUE(halfConfigured.err.contains(QLatin1String("--tls-key")))
        << qPrintable(halfConfigured.err);
}

// Authorizations in the clear only where the deployment allows plain HTTP.
TEST(ChannelUrl, APlainHttpChannelIsRefusedUnlessAllowed)
{
    {
        test::PlainHttpRefused refused;
        const Result<ChannelFactory> plain =
            httpChannel(QStringLiteral("http://10.0.0.7:8090"), 1000);
        ASSERT_FALSE(plain.ok());
        EXPECT_EQ(plain.error().field, QStringLiteral("channel"));
        EXPECT_TRUE(plain.error().message.contains(QLatin1String("--allow-http")))
            << qPrintable(plain.error().message);
        EXPECT_TRUE(httpChannel(QStringLiteral("https://acquirer.example"), 1000).ok());
        EXPECT_FALSE(httpChannel(QStringLiteral("ftp://acquirer.example"), 1000).ok());
    }
    EXPECT_TRUE(httpChannel(QStringLiteral("http://127.0.0.1:8090"), 1000).ok());
}
