#include "GatewayTest.h"

#include "core/db/LibpqConnection.h"
#include "core/ledger/Ledger.h"

#include <QDir>
#include <QProcess>
#include <QStandardPaths>

using namespace keel;
using keel::test::GatewayTest;

class StripeClientTest : public GatewayTest {
protected:
    void SetUp() override
    {
        GatewayTest::SetUp();
        if (!HasFatalFailure())
            startGateway();
    }
};

// The wire-compatibility promise, checked with Stripe's own Node library
// (tests/compat, installed by packaging/run-tests with npm ci).
TEST_F(StripeClientTest, StripesNodeLibraryWorksAgainstKeelUnchanged)
{
    const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
    ASSERT_FALSE(node.isEmpty()) << "node is needed (Debian package nodejs)";
    const QDir compat(QStringLiteral(KEEL_COMPAT_DIR));
    ASSERT_TRUE(compat.exists(QStringLiteral("node_modules/stripe/package.json")))
        << "run: npm ci --prefix tests/compat (packaging/run-tests does)";
    QProcess client;
    client.setWorkingDirectory(compat.path());
    client.start(node,
                 {QStringLiteral("stripe_client.mjs"),
                  QStringLiteral("http://127.0.0.1:%1").arg(m_gateway->port()), m_merchant.apiKey});
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
