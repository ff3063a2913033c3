// keel's HTTP client over TLS against a real TLS server the test starts
// (openssl s_server with certificates the test makes): it answers only when
// the server's chain and name verify, and every other case is a clean,
// recorded failure before a byte of the request is sent.

#include "DrippingPeer.h"
#include "TestPki.h"

#include "core/net/HttpClient.h"
#include "core/net/LoopbackPort.h"
#include "core/net/TlsSession.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QUrl>

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace keel;
using keel::test::TestPki;

namespace {

class TlsClientTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(m_pki.ok()) << "openssl could not make the test's certificates";
        ASSERT_EQ(TlsSession::trustAlso(m_pki.caCertificate()), QString());
    }

    void TearDown() override
    {
        (void)TlsSession::trustAlso({});
        if (m_server.state() != QProcess::NotRunning) {
            m_server.kill();
            m_server.waitForFinished(5000);
        }
    }

    // An HTTPS server on a free port presenting `certificate`; its port.
    int serve(const QString &certificate)
    {
        const int port = bindLoopback();
        m_server.setProcessChannelMode(QProcess::MergedChannels);
        m_server.start(QStringLiteral("openssl"),
                       {QStringLiteral("s_server"), QStringLiteral("-accept"),
                        QStringLiteral("127.0.0.1:%1").arg(port), QStringLiteral("-cert"),
                        certificate, QStringLiteral("-key"), m_pki.serverKey(),
                        QStringLiteral("-www")});
        QElapsedTimer waited;
        waited.start();
        while (!m_output.contains("ACCEPT") && waited.elapsed() < 15000 &&
               m_server.waitForReadyRead(500))
            m_output += m_server.readAll();
        EXPECT_TRUE(m_output.contains("ACCEPT")) << m_output.constData();
        return port;
    }

    static HttpReply get(const QString &host, int port, int timeoutMs = 5000)
    {
        return HttpClient(host, port, timeoutMs, true).request("GET", "/");
    }

    TestPki m_pki;
    QProcess m_server;
    QByteArray m_output;
};

TEST_F(TlsClientTest, AServerItsAuthorityVouchesForAnswers)
{
    const int port = serve(m_pki.serverCertificate());
    HttpClient client(QStringLiteral("localhost"), port, 5000, true);
    const HttpReply reply = client.request("GET", "/");
    EXPECT_EQ(reply.status, 200) << qPrintable(reply.error);
    EXPECT_EQ(reply.failure, HttpFailure::None);
    // The server closes after each answer; the next request finds the
    // connection gone before sending and opens, and verifies, a new one.
    EXPECT_EQ(client.request("GET", "/").status, 200);

    const std::unique_ptr<HttpClient> byUrl =
        HttpClient::forUrl(QUrl(QStringLiteral("https://localhost:%1/").arg(port)), 5000);
    ASSERT_TRUE(byUrl);
    EXPECT_EQ(byUrl->request("GET", "/").status, 200);
}

TEST_F(TlsClientTest, AnAddressTheCertificateDoesNotNameIsRefused)
{
    // Same server, dialled by an address; its certificate names localhost.
    const HttpReply reply = get(QStringLiteral("127.0.0.1"), serve(m_pki.serverCertificate()));
    EXPECT_EQ(reply.status, 0);
    EXPECT_EQ(reply.failure, HttpFailure::Unreachable);
    EXPECT_TRUE(reply.error.contains(QLatin1String("IP address mismatch")))
        << qPrintable(reply.error);
}

TEST_F(TlsClientTest, AnAuthorityNotTrustedIsRefused)
{
    const int port = serve(m_pki.serverCertificate());
    ASSERT_EQ(TlsSession::trustAlso({}), QString()); // the system's store alone
    const HttpReply reply = get(QStringLiteral("localhost"), port);
    EXPECT_EQ(reply.status, 0);
    EXPECT_EQ(reply.failure, HttpFailure::Unreachable);
    EXPECT_TRUE(reply.error.contains(QLatin1String("unable to get local issuer certificate")))
        << qPrintable(reply.error);
}

TEST_F(TlsClientTest, AnExpiredCertificateIsRefused)
{
    const HttpReply reply = get(QStringLiteral("localhost"), serve(m_pki.expiredCertificate()));
    EXPECT_EQ(reply.status, 0);
    EXPECT_EQ(reply.failure, HttpFailure::Unreachable);
    EXPECT_TRUE(reply.error.contains(QLatin1String("certificate has expired")))
        << qPrintable(reply.error);
}

// A peer that takes the connection and never answers the handshake: the
// client gives up after its timeout, having sent nothing of the request.
TEST_F(TlsClientTest, AHandshakeThatStallsTimesOut)
{
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(listener, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr *>(&address), sizeof address), 0);
    ASSERT_EQ(::listen(listener, 4), 0); // the kernel takes the connection; nobody reads
    socklen_t size = sizeof address;
    ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr *>(&address), &size), 0);

    QElapsedTimer timer;
    timer.start();
    const HttpReply reply = get(QStringLiteral("localhost"), ntohs(address.sin_port), 800);
    const qint64 waited = timer.elapsed();
    ::close(listener);
    EXPECT_EQ(reply.status, 0);
    EXPECT_EQ(reply.failure, HttpFailure::Unreachable);
    EXPECT_TRUE(reply.error.contains(QLatin1String("timed out"))) << qPrintable(reply.error);
    EXPECT_GE(waited, 700);
    EXPECT_LT(waited, 5000);
}

// A peer that opens a 16 KB handshake record and sends it a byte every
// 100 ms: each read makes progress, so only the call's bound ends the
// handshake, with nothing of the request sent.
TEST_F(TlsClientTest, AHandshakeDrippedAByteAtATimeTimesOut)
{
    test::DrippingPeer peer(QByteArray("\x16\x03\x03\x40\x00", 5), QByteArray(16384, '\0'), 100);
    ASSERT_NE(peer.port(), 0);
    QElapsedTimer timer;
    timer.start();
    const HttpReply reply = get(QStringLiteral("localhost"), peer.port(), 1000);
    const qint64 waited = timer.elapsed();
    EXPECT_EQ(reply.status, 0);
    EXPECT_EQ(reply.failure, HttpFailure::Unreachable);
    EXPECT_TRUE(reply.error.contains(QLatin1String("timed out"))) << qPrintable(reply.error);
    EXPECT_GE(waited, 900);
    EXPECT_LT(waited, 3000);
}

TEST_F(TlsClientTest, AnUnreadableAuthorityFileIsNamed)
{
    const QString error = TlsSession::trustAlso(QStringLiteral("/nonexistent/ca.pem"));
    EXPECT_TRUE(error.contains(QLatin1String("/nonexistent/ca.pem"))) << qPrintable(error);
}

} // namespace
