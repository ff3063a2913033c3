#include "GatewayTest.h"
#include "KeelProcess.h"

#include <QJsonDocument>
#include <QJsonObject>

using namespace keel;
using keel::test::GatewayTest;
using keel::test::runKeel;

class AuditCommandTest : public GatewayTest {
protected:
    void SetUp() override
    {
        GatewayTest::SetUp();
        if (!HasFatalFailure())
            startGateway();
    }
};

TEST_F(AuditCommandTest, BalancedLedgerPassesAndAMismatchIsNamed)
{
    const HttpReply charge =
        post("/v1/charges", "amount=1000&currency=usd&source=tok_visa", "audit-1");
    ASSERT_EQ(charge.status, 200);
    const QString id =
        QJsonDocument::fromJson(charge.body).object().value(QStringLiteral("id")).toString();
    auto clean = runKeel({QStringLiteral("audit"), QStringLiteral("ledger"), QStringLiteral("--db"),
                          settings().conninfo()});
    EXPECT_EQ(clean.exitCode, 0) << qPrintable(clean.err);
    EXPECT_TRUE(clean.out.contains(QLatin1String("ledger balances: 1 transactions, 2 entries")))
        << qPrintable(clean.out);

    // The database refuses unbalanced postings outright, so the audit's job is
    // what no constraint can see: a charge whose records disagree with the ledger.
    ASSERT_EQ(scalar("UPDATE keel.charges SET amount_captured = 900 RETURNING 1"),
              QStringLiteral("1"));
    auto broken = runKeel({QStringLiteral("audit"), QStringLiteral("ledger"),
                           QStringLiteral("--db"), settings().conninfo()});
    EXPECT_EQ(broken.exitCode, 1);
    EXPECT_TRUE(broken.err.contains(id)) << qPrintable(broken.err);
    EXPECT_TRUE(broken.err.contains(QLatin1String("900")));
}

// The database refuses unbalanced postings, so these rows are written the way
// an operator's hand-edit could: with triggers switched off for the session.
class AuditLedgerChecksTest : public AuditCommandTest {
protected:
    void SetUp() override
    {
        AuditCommandTest::SetUp();
        ASSERT_FALSE(HasFatalFailure());
        const HttpReply charge =
            post("/v1/charges", "amount=1000&currency=usd&source=tok_visa", "audit-checks");
        ASSERT_EQ(charge.status, 200);
        m_chargeId =
            QJsonDocument::fromJson(charge.body).object().value(QStringLiteral("id")).toString();
        ASSERT_EQ(audit().exitCode, 0) << "the ledger must balance before it is broken";
    }
    QString bypassingTriggers(const QByteArray &sql)
    {
        return scalar("SET session_replication_role = replica; " + sql);
    }
    keel::test::ProcessResult audit()
    {
        return runKeel({QStringLiteral("audit"), QStringLiteral("ledger"), QStringLiteral("--db"),
                        settings().conninfo()});
    }
    QString m_chargeId;
};

TEST_F(AuditLedgerChecksTest, AnUnbalancedTransactionAndTheBooksItUnbalanceAreNamed)
{
    ASSERT_EQ(bypassingTriggers("INSERT INTO keel.ledger_entries (transaction_id, account_id, "
                                "currency, amount) SELECT transaction_id, account_id, currency, 7 "
                                "FROM keel.ledger_entries ORDER BY id LIMIT 1 RETURNING 1"),
              QStringLiteral("1"));
    const auto broken = audit();
    EXPECT_EQ(broken.exitCode, 1);
    EXPECT_TRUE(broken.err.contains(QLatin1String("does not balance in USD: 7 left over")))
        << qPrintable(broken.err);
    EXPECT_TRUE(broken.err.contains(QLatin1String("the books do not sum to zero in USD: 7")))
        << qPrintable(broken.err);
}

TEST_F(AuditLedgerChecksTest, AnEntryInAnotherCurrencyThanItsAccountIsNamed)
{
    // Balanced in EUR, but on the charge's USD accounts.
    ASSERT_EQ(bypassingTriggers("INSERT INTO keel.ledger_entries (transaction_id, account_id, "
                                "currency, amount) SELECT transaction_id, account_id, 'EUR', "
                                "-amount FROM keel.ledger_entries ORDER BY id LIMIT 2; "
                                "SELECT count(*) FROM keel.ledger_entries WHERE currency = 'EUR'"),
              QStringLiteral("2"));
    const auto broken = audit();
    EXPECT_EQ(broken.exitCode, 1);
    EXPECT_TRUE(broken.err.contains(QLatin1String("is in EUR but its account is in USD")))
        << qPrintable(broken.err);
    EXPECT_FALSE(broken.err.contains(QLatin1String("does not balance"))) << qPrintable(broken.err);
}

TEST_F(AuditLedgerChecksTest, ARefundTheLedgerNeverPostedIsNamed)
{
    ASSERT_EQ(scalar("UPDATE keel.charges SET amount_refunded = 1 RETURNING 1"),
              QStringLiteral("1"));
    const auto broken = audit();
    EXPECT_EQ(broken.exitCode, 1);
    EXPECT_TRUE(broken.err.contains(
        QStringLiteral("charge %1 records 1 refunded but the ledger has 0").arg(m_chargeId)))
        << qPrintable(broken.err);
}

// The channel returned money (its own record shows the refund approved) that
// keel never booked: its charges table and ledger agree with each other, so
// only the channel's record can tell.
TEST_F(AuditLedgerChecksTest, MoneyTheChannelReturnedThatKeelNeverBookedIsNamed)
{
    const auto clean = audit();
    EXPECT_TRUE(clean.out.contains(QLatin1String("1 charges match the channel's own record")))
        << qPrintable(clean.out);
    ASSERT_EQ(scalar("INSERT INTO keel.refunds (public_id, charge_id, out_refund_no, amount, "
                     "currency, status, request_hash) SELECT 're_auditunbooked1', id, 'r-1', 300, "
                     "currency, 'failed', '\\x00' FROM keel.charges; "
                     "INSERT INTO keel.sim_channel_operations (reference, operation, outcome, "
                     "amount) VALUES ('re_auditunbooked1', 'refund', 'approved', 300) RETURNING 1"),
              QStringLiteral("1"));
    const auto broken = audit();
    EXPECT_EQ(broken.exitCode, 1);
    EXPECT_TRUE(broken.err.contains(QStringLiteral("charge %1: the channel's record says it holds "
                                                   "700 for it, keel's clearing account 1000")
                                        .arg(m_chargeId)))
        << qPrintable(broken.err);
}

// The charge's money moved from the merchant into suspense a second time, with
// no case to hold it: the merchant is debited twice for one charge.
TEST_F(AuditLedgerChecksTest, SuspenseAChargeHoldsBeyondItsOpenCasesIsNamed)
{
    ASSERT_EQ(bypassingTriggers(
                  "WITH t AS (INSERT INTO keel.ledger_transactions (kind, charge_id, description) "
                  "SELECT 'suspense_in', id, 'hand edit' FROM keel.charges RETURNING id) "
                  "INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount) "
                  "SELECT t.id, a.id, 'USD', CASE a.kind WHEN 'suspense' THEN -1000 ELSE 1000 END "
                  "FROM t, keel.ledger_accounts a WHERE a.currency = 'USD' AND (a.kind = "
                  "'suspense' OR a.code LIKE 'merchant_payable:%') RETURNING 1"),
              QStringLiteral("1"));
    const auto broken = audit();
    EXPECT_EQ(broken.exitCode, 1);
    EXPECT_TRUE(broken.err.contains(
        QStringLiteral("charge %1 has 1000 in suspense but its open cases hold 0").arg(m_chargeId)))
        << qPrintable(broken.err);
}

TEST_F(AuditLedgerChecksTest, AnOpenCaseWhosePostingsHoldLessIsNamed)
{
    // It names a posting (the charge's capture) that moved nothing into suspense.
    const QString caseId = scalar(
        "INSERT INTO keel.suspense_cases (charge_id, currency, amount, reason, "
        "ledger_transaction_id) SELECT c.id, c.currency, 400, 'hand edit', t.id FROM keel.charges "
        "c JOIN keel.ledger_transactions t ON t.charge_id = c.id RETURNING id");
    ASSERT_TRUE(caseId.toLongLong() > 0) << qPrintable(caseId);
    const auto broken = audit();
    EXPECT_EQ(broken.exitCode, 1);
    EXPECT_TRUE(broken.err.contains(
        QStringLiteral("suspense case %1 is open for 400 but its postings hold 0").arg(caseId)))
        << qPrintable(broken.err);
}

TEST_F(AuditCommandTest, MerchantCreatePrintsKeysOnceAndStoresOnlyTheirHash)
{
    auto made =
        runKeel({QStringLiteral("merchant"), QStringLiteral("create"), QStringLiteral("--db"),
                 settings().conninfo(), QStringLiteral("--name"), QStringLiteral("Noodle Bar"),
                 QStringLiteral("--notify-url"), QStringLiteral("https://noodle.example/notify")});
    ASSERT_EQ(made.exitCode, 0) << qPrintable(made.err);
    const QStringList fields = made.out.trimmed().split(u' ');
    ASSERT_EQ(fields.size(), 3) << qPrintable(made.out);
    EXPECT_TRUE(fields.at(0).startsWith(QLatin1String("merchant_id=")));
    const QString apiKey = fields.at(1).section(u'=', 1);
    EXPECT_TRUE(apiKey.startsWith(QLatin1String("sk_")));
    EXPECT_TRUE(fields.at(2).startsWith(QLatin1String("webhook_secret=whsec_")));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.merchants WHERE api_key_hash = sha256('" +
                     apiKey.toLatin1() + "'::bytea)"),
              QStringLiteral("1"));
    EXPECT_EQ(
        scalar("SELECT count(*) FROM keel.merchants WHERE name = '" + apiKey.toLatin1() + "'"),
        QStringLiteral("0"));
    // The new key works against the gateway.
    const HttpReply charge = m_client->request(
        "POST", "/v1/charges",
        {{"Authorization", "Bearer " + apiKey.toLatin1()}, {"Idempotency-Key", "n1"}},
        "amount=500&currency=cny&source=tok_visa");
    EXPECT_EQ(charge.status, 200) << charge.body.constData();

    auto missingName = runKeel({QStringLiteral("merchant"), QStringLiteral("create"),
                                QStringLiteral("--db"), settings().conninfo()});
    EXPECT_EQ(missingName.exitCode, 2);
    auto badUrl =
        runKeel({QStringLiteral("merchant"), QStringLiteral("create"), QStringLiteral("--db"),
                 settings().conninfo(), QStringLiteral("--name"), QStringLiteral("x"),
                 QStringLiteral("--notify-url"), QStringLiteral("ftp://nope")});
    EXPECT_EQ(badUrl.exitCode, 2);
    EXPECT_TRUE(badUrl.err.contains(QLatin1String("--notify-url")));
}

// What the worker would never deliver to is refused when the merchant is
// made: plain http:// unless the deployment allows it, as its workers do.
TEST_F(AuditCommandTest, MerchantCreateRefusesAPlainHttpNotifyUrlUnlessAllowed)
{
    const QString before = scalar("SELECT count(*) FROM keel.merchants");
    const QStringList create{
        QStringLiteral("merchant"),     QStringLiteral("create"),
        QStringLiteral("--db"),         settings().conninfo(),
        QStringLiteral("--name"),       QStringLiteral("Plain"),
        QStringLiteral("--notify-url"), QStringLiteral("http://plain.example/notify")};
    auto refused = runKeel(create);
    EXPECT_EQ(refused.exitCode, 2);
    EXPECT_TRUE(refused.err.contains(QLatin1String("--notify-url is refused")))
        << qPrintable(refused.err);
    EXPECT_TRUE(refused.err.contains(QLatin1String("--allow-http"))) << qPrintable(refused.err);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.merchants"), before) << "nothing was written";
    auto allowed = runKeel(create + QStringList{QStringLiteral("--allow-http")});
    EXPECT_EQ(allowed.exitCode, 0) << qPrintable(allowed.err);
    EXPECT_EQ(scalar("SELECT notify_url FROM keel.merchants WHERE name = 'Plain'"),
              QStringLiteral("http://plain.example/notify"));
}

TEST_F(AuditCommandTest, SeededHistoryIsConsistentAndPassesTheLedgerAudit)
{
    auto seeded = runKeel({QStringLiteral("seed"), QStringLiteral("--db"), settings().conninfo(),
                           QStringLiteral("--charges"), QStringLiteral("1200"),
                           QStringLiteral("--merchants"), QStringLiteral("3")});
    ASSERT_EQ(seeded.exitCode, 0) << qPrintable(seeded.err);
    EXPECT_TRUE(seeded.out.contains(QLatin1String("seeded 1200 charges")));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QStringLiteral("1200"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.payment_state"), QStringLiteral("1200"));
    // Every charge's events lead to its state.
    EXPECT_EQ(
        scalar("SELECT count(*) FROM keel.payment_state s WHERE s.state <> (SELECT e.to_state "
               "FROM keel.payment_events e WHERE e.charge_id = s.charge_id ORDER BY e.id DESC "
               "LIMIT 1)"),
        QStringLiteral("0"));
    EXPECT_EQ(scalar("SELECT count(DISTINCT state) >= 3 FROM keel.payment_state"),
              QStringLiteral("t"));
    auto audit = runKeel({QStringLiteral("audit"), QStringLiteral("ledger"), QStringLiteral("--db"),
                          settings().conninfo()});
    EXPECT_EQ(audit.exitCode, 0) << qPrintable(audit.err);
}
