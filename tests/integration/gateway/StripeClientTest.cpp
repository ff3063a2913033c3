#include "GatewayTest.h"
#include "TestPki.h"

#include "core/db/LibpqConnection.h"
#include "core/ledger/Ledger.h"
#include "core/net/TlsSession.h"
#include "core/outbox/NotificationSender.h"

#include <QDir>
#include <QProcess>
#include <QStandardPaths>

using namespace keel;
using keel::test::GatewayTest;
using keel::test::TestPki;

class StripeClientTest : public GatewayTest {
protected:
    void SetUp() override
    {
        GatewayTest::SetUp();
        if (!HasFatalFailure())
            startGateway();
    }

    void TearDown() override
    {
        (void)TlsSession::trustAlso({});
        GatewayTest::TearDown();
    }

    // node with Stripe's library in tests/compat, running `script`.
    void startNode(QProcess &process, const QStringList &arguments)
    {
        const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
        ASSERT_FALSE(node.isEmpty()) << "node is needed (Debian package nodejs)";
        const QDir compat(QStringLiteral(KEEL_COMPAT_DIR));
        ASSERT_TRUE(compat.exists(QStringLiteral("node_modules/stripe/package.json")))
            << "run: npm ci --prefix tests/compat (packaging/run-tests does)";
        process.setWorkingDirectory(compat.path());
        process.start(node, arguments);
    }
};

// The wire-compatibility promise, checked with Stripe's own Node library
// (tests/compat, installed by packaging/run-tests with npm ci).
TEST_F(StripeClientTest, StripesNodeLibraryWorksAgainstKeelUnchanged)
{
    QProcess client;
    startNode(client,
              {QStringLiteral("stripe_client.mjs"),
               QStringLiteral("http://127.0.0.1:%1").arg(m_gateway->port()), m_merchant.apiKey});
    ASSERT_FALSE(HasFatalFailure());
    ASSERT_TRUE(client.waitForFinished(60000));
    EXPECT_EQ(client.exitCode(), 0) << client.readAllStandardError().constData();
    EXPECT_TRUE(client.readAllStandardOutput().contains("agrees with keel"));

    // What the library did is what keel recorded.
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QStringLiteral("3"));
    EXPECT_EQ(scalar("SELECT string_agg(state, ',' ORDER BY charge_id) FROM keel.payment_state"),
              QStringLiteral("Captured,Failed,Captured"));
    EXPECT_EQ(scalar("SELECT count(*) || ':' || sum(amount) FROM keel.refunds"),
              QStringLiteral("1:500"));
    auto session = LibpqConnection::open(settings());
    auto audit = Ledger::audit(*session);
    ASSERT_TRUE(audit.ok());
    EXPECT_TRUE(audit->violations.isEmpty()) << qPrintable(audit->violations.join(u'\n'));
}

// A merchant's notifications go out over TLS to an https:// endpoint (its
// certificate from the deployment's own authority, trusted with --ca-file),
// which checks every one with Stripe's own library before it answers 2xx.
TEST_F(StripeClientTest, NotificationsReachAnHttpsEndpointThatChecksThemWithStripesLibrary)
{
    const TestPki pki;
    ASSERT_TRUE(pki.ok());
    ASSERT_EQ(TlsSession::trustAlso(pki.caCertificate()), QString());
    QProcess receiver;
    startNode(receiver, {QStringLiteral("notify_receiver.mjs"), pki.serverCertificate(),
                         pki.serverKey(), m_merchant.webhookSecret});
    ASSERT_FALSE(HasFatalFailure());
    QByteArray heard;
    while (!heard.contains('\n') && receiver.waitForReadyRead(15000))
        heard += receiver.readAllStandardOutput();
    ASSERT_TRUE(heard.startsWith("listening "))
        << heard.constData() << receiver.readAllStandardError().constData();
    const QByteArray port = heard.mid(10).trimmed();
    EXPECT_EQ(scalar("UPDATE keel.merchants SET notify_url = 'https://localhost:" + port +
                     "/hooks/keel' RETURNING 1"),
              QStringLiteral("1"));
    const HttpReply charged =
        post("/v1/charges", "amount=1999&currency=usd&source=tok_visa", "tls-notify");
    ASSERT_EQ(charged.status, 200) << charged.body.constData();

    auto session = LibpqConnection::open(settings());
    ASSERT_TRUE(session.ok());
    NotificationOptions options;
    options.timeoutMs = 5000;
    auto pass = NotificationSender(*session, options).runOnce();
    ASSERT_TRUE(pass.ok()) << qPrintable(pass.error().message);
    EXPECT_GE(pass->delivered, 1);
    EXPECT_EQ(pass->failed + pass->parked, 0)
        << qPrintable(scalar("SELECT string_agg(error, ' | ') FROM keel.notification_attempts"));
    while (receiver.waitForReadyRead(1000))
        heard += receiver.readAllStandardOutput();
    EXPECT_TRUE(heard.contains("verified evt_")) << heard.constData();
    EXPECT_FALSE(heard.contains("refused")) << heard.constData();
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.notification_attempts WHERE http_status = 200"),
              QString::number(pass->delivered));
    receiver.kill();
    receiver.waitForFinished(5000);
}
