#include "MigratedDatabaseTest.h"

#include "core/db/LibpqConnection.h"

using namespace keel;
using keel::test::MigratedDatabaseTest;

class SchemaRulesTest : public MigratedDatabaseTest {};

TEST_F(SchemaRulesTest, UnbalancedLedgerTransactionIsRefusedAtCommit)
{
    const QByteArray post =
        "BEGIN;"
        "WITH t AS (INSERT INTO keel.ledger_transactions (kind) VALUES ('test') RETURNING id) "
        "INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount) "
        "SELECT t.id, a.id, 'CNY', %1 FROM t, keel.ledger_accounts a "
        "WHERE a.code = 'channel_clearing:CNY' UNION ALL "
        "SELECT t.id, a.id, 'CNY', %2 FROM t, keel.ledger_accounts a WHERE a.code = 'suspense:CNY';"
        "COMMIT;";
    Status unbalanced =
        session().exec(QByteArray(post).replace("%1", "1000").replace("%2", "-999"));
    ASSERT_FALSE(unbalanced.ok());
    EXPECT_EQ(session().lastSqlState(), QLatin1String("23514"));
    EXPECT_TRUE(unbalanced.error().message.contains(QLatin1String("does not balance")));
    session().exec("ROLLBACK").ok();
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("0"));

    ASSERT_TRUE(session().exec(QByteArray(post).replace("%1", "1000").replace("%2", "-1000")).ok());
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("2"));
    EXPECT_EQ(scalar("SELECT sum(amount) FROM keel.ledger_entries"), QStringLiteral("0"));
}

TEST_F(SchemaRulesTest, LedgerEntriesCannotBeEditedOrDeleted)
{
    ASSERT_TRUE(
        session()
            .exec(
                "BEGIN;"
                "WITH t AS (INSERT INTO keel.ledger_transactions (kind) VALUES ('test') RETURNING "
                "id) "
                "INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount) "
                "SELECT t.id, a.id, 'JPY', CASE a.kind WHEN 'asset' THEN 500 ELSE -500 END FROM t, "
                "keel.ledger_accounts a WHERE a.code IN ('channel_clearing:JPY', "
                "'suspense:JPY');"
                "COMMIT;")
            .ok());
    EXPECT_FALSE(session().exec("UPDATE keel.ledger_entries SET amount = amount * 2").ok());
    EXPECT_FALSE(session().exec("DELETE FROM keel.ledger_entries").ok());
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("2"));
}

TEST_F(SchemaRulesTest, EntryCurrencyMustMatchItsAccount)
{
    Status wrong = session().exec(
        "BEGIN;"
        "WITH t AS (INSERT INTO keel.ledger_transactions (kind) VALUES ('test') RETURNING id) "
        "INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount) "
        "SELECT t.id, a.id, 'USD', 100 FROM t, keel.ledger_accounts a WHERE a.code = "
        "'suspense:CNY';"
        "COMMIT;");
    EXPECT_FALSE(wrong.ok());
    EXPECT_EQ(session().lastSqlState(), QLatin1String("23503"));
    session().exec("ROLLBACK").ok();
}

TEST_F(SchemaRulesTest, OneSuspenseAccountPerCurrency)
{
    EXPECT_EQ(scalar("SELECT count(*) = count(DISTINCT currency) FROM keel.ledger_accounts WHERE "
                     "kind = 'suspense'"),
              QStringLiteral("t"));
    EXPECT_FALSE(session()
                     .exec("INSERT INTO keel.ledger_accounts (code, kind, currency) "
                           "VALUES ('suspense2:CNY', 'suspense', 'CNY')")
                     .ok());
    EXPECT_EQ(session().lastSqlState(), QLatin1String("23505"));
}

TEST_F(SchemaRulesTest, AuditLogIsAHashChainThatRefusesEdits)
{
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(session()
                        .exec("INSERT INTO keel.audit_log (action, object_type, object_id, detail) "
                              "VALUES ('test', 'charge', '" +
                              QByteArray::number(i) + "', '{\"n\": " + QByteArray::number(i) +
                              "}')")
                        .ok());
    // Each row links to its predecessor's hash; the first has none.
    EXPECT_EQ(
        scalar("SELECT count(*) FROM keel.audit_log a JOIN keel.audit_log b ON b.seq = a.seq - 1 "
               "WHERE a.prev_hash = b.hash"),
        QStringLiteral("2"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.audit_log WHERE seq = 1 AND prev_hash IS NULL"),
              QStringLiteral("1"));
    EXPECT_EQ(scalar("SELECT count(DISTINCT hash) FROM keel.audit_log"), QStringLiteral("3"));
    EXPECT_FALSE(session().exec("UPDATE keel.audit_log SET detail = '{}'").ok());
    EXPECT_FALSE(session().exec("DELETE FROM keel.audit_log").ok());
}

TEST_F(SchemaRulesTest, DuplicateUpstreamEventIsDroppedByConstraint)
{
    ASSERT_TRUE(
        session()
            .exec("INSERT INTO keel.merchants (name, api_key_hash) VALUES ('m', sha256('k'));"
                  "INSERT INTO keel.charges (public_id, merchant_id, out_trade_no, amount, "
                  "currency, source, "
                  "request_hash) SELECT 'ch_test00000001', id, 'order-1', 100, 'CNY', 'tok_visa', "
                  "sha256('r') "
                  "FROM keel.merchants;")
            .ok());
    const QByteArray event =
        "INSERT INTO keel.payment_events (charge_id, from_state, to_state, event_type, "
        "upstream_event_id) SELECT id, 'Authorizing', 'Authorized', 'auth_ok', 'evt_1' FROM "
        "keel.charges";
    ASSERT_TRUE(session().exec(event).ok());
    EXPECT_FALSE(session().exec(event).ok());
    EXPECT_EQ(session().lastSqlState(), QLatin1String("23505"));
    // The same order number for the same merchant is refused too.
    EXPECT_FALSE(session()
                     .exec("INSERT INTO keel.charges (public_id, merchant_id, out_trade_no, "
                           "amount, currency, source, "
                           "request_hash) SELECT 'ch_test00000002', id, 'order-1', 100, 'CNY', "
                           "'tok_visa', sha256('r') "
                           "FROM keel.merchants")
                     .ok());
    EXPECT_EQ(session().lastSqlState(), QLatin1String("23505"));
}

TEST_F(SchemaRulesTest, AmountsMustBePositiveAndCurrenciesKnown)
{
    ASSERT_TRUE(
        session()
            .exec("INSERT INTO keel.merchants (name, api_key_hash) VALUES ('m', sha256('k'))")
            .ok());
    const QByteArray charge =
        "INSERT INTO keel.charges (public_id, merchant_id, out_trade_no, amount, currency, source, "
        "request_hash) SELECT 'ch_test0000000%1', id, 'o%1', %2, '%3', 'tok', sha256('r') FROM "
        "keel.merchants";
    EXPECT_FALSE(
        session()
            .exec(QByteArray(charge).replace("%1", "1").replace("%2", "0").replace("%3", "CNY"))
            .ok());
    EXPECT_EQ(session().lastSqlState(), QLatin1String("23514"));
    EXPECT_FALSE(
        session()
            .exec(QByteArray(charge).replace("%1", "2").replace("%2", "-5").replace("%3", "CNY"))
            .ok());
    EXPECT_FALSE(
        session()
            .exec(QByteArray(charge).replace("%1", "3").replace("%2", "5").replace("%3", "XXX"))
            .ok());
    EXPECT_EQ(session().lastSqlState(), QLatin1String("23503"));
    EXPECT_TRUE(
        session()
            .exec(QByteArray(charge).replace("%1", "4").replace("%2", "5").replace("%3", "JPY"))
            .ok());
}
