// A posting is sealed when the transaction that wrote it commits (migration
// 0045): the service login, which writes postings, cannot add entries to one
// written earlier, however well they balance.

#include "MigratedDatabaseTest.h"

#include "core/db/LibpqConnection.h"

#include <optional>

using namespace keel;
using keel::test::MigratedDatabaseTest;

namespace {

constexpr char InsufficientPrivilege[] = "42501";
// The test's newest posting; nothing else writes one meanwhile.
constexpr char Newest[] = "(SELECT max(id) FROM keel.ledger_transactions)";

// One balanced pair moving `amount` minor units between the test's accounts.
QByteArray pair(const QByteArray &posting, int amount)
{
    const QByteArray value = QByteArray::number(amount);
    return "INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount) "
           "SELECT " +
           posting + ", id, 'USD', CASE code WHEN 'seal_test_a:USD' THEN " + value + " ELSE -" +
           value +
           " END FROM keel.ledger_accounts WHERE code IN ('seal_test_a:USD', 'seal_test_b:USD')";
}

} // namespace

class LedgerSealTest : public MigratedDatabaseTest {
protected:
    void SetUp() override
    {
        MigratedDatabaseTest::SetUp();
        exec("INSERT INTO keel.ledger_accounts (code, kind, currency) VALUES "
             "('seal_test_a:USD', 'asset', 'USD'), ('seal_test_b:USD', 'liability', 'USD')");
        for (std::optional<LibpqConnection> *login : {&m_service, &m_otherService}) {
            auto opened = LibpqConnection::open(loginAs(QStringLiteral("keel_gateway")));
            ASSERT_TRUE(opened.ok()) << qPrintable(opened.error().message);
            login->emplace(std::move(*opened));
        }
    }

    // What the test's first account holds, as text.
    QString balance()
    {
        return scalar("SELECT coalesce(sum(e.amount), 0) FROM keel.ledger_entries e "
                      "JOIN keel.ledger_accounts a ON a.id = e.account_id "
                      "WHERE a.code = 'seal_test_a:USD'");
    }

    LibpqConnection &service() { return *m_service; }

    // Runs `sql` as the service login, which must succeed.
    void serviceRuns(const QByteArray &sql)
    {
        const Status done = service().exec(sql);
        ASSERT_TRUE(done.ok()) << qPrintable(done.error().message);
    }

    // Opens a transaction of the service's; its id and start, as SQL
    // literals for a stamp that names it.
    QByteArray openServiceTransaction()
    {
        auto stamp = service().scalar("BEGIN; SELECT format('%L::xid8, %L::timestamptz', "
                                      "pg_current_xact_id(), now())");
        EXPECT_TRUE(stamp.ok()) << qPrintable(stamp.error().message);
        return stamp.ok() ? stamp->toUtf8() : QByteArray("NULL, NULL");
    }

    // Adds entries to the newest posting inside the open transaction, which
    // the database must refuse as sealed; rolls the transaction back.
    void expectSealedInOpenTransaction()
    {
        const Status added = service().exec(pair(Newest, 40));
        EXPECT_FALSE(added.ok());
        EXPECT_EQ(service().lastSqlState(), QLatin1String(InsufficientPrivilege));
        if (!added.ok()) {
            EXPECT_TRUE(added.error().message.contains(QLatin1String("sealed")))
                << qPrintable(added.error().message);
        }
        ASSERT_TRUE(service().exec("ROLLBACK").ok());
        EXPECT_EQ(balance(), QStringLiteral("0"));
    }

    std::optional<LibpqConnection> m_service;
    std::optional<LibpqConnection> m_otherService;
};

TEST_F(LedgerSealTest, TheServiceCannotAddEntriesToAPostingAnEarlierTransactionWrote)
{
    auto id = service().scalar("WITH t AS (INSERT INTO keel.ledger_transactions (kind) "
                               "VALUES ('adjustment') RETURNING id) SELECT id FROM t");
    ASSERT_TRUE(id.ok()) << qPrintable(id.error().message);
    const QByteArray posting = id->toLatin1();
    // Written and filled in one transaction, as every poster does.
    serviceRuns("BEGIN; INSERT INTO keel.ledger_transactions (kind) VALUES ('adjustment'); " +
                pair(Newest, 700) + "; COMMIT");
    ASSERT_EQ(balance(), QStringLiteral("700"));

    // The empty posting from the first statement, and the filled one, later.
    for (const QByteArray &old : {posting, QByteArray(Newest)}) {
        const Status added = service().exec(pair(old, 5000));
        ASSERT_FALSE(added.ok()) << old.constData();
        EXPECT_EQ(service().lastSqlState(), QLatin1String(InsufficientPrivilege));
        EXPECT_TRUE(added.error().message.contains(QLatin1String("sealed")))
            << qPrintable(added.error().message);
    }
    EXPECT_EQ(balance(), QStringLiteral("700"));
    // Not even the superuser changes a posting, stamp and all.
    for (const QByteArray &change :
         {QByteArray("UPDATE keel.ledger_transactions SET written_in = NULL"),
          QByteArray("DELETE FROM keel.ledger_transactions WHERE id = " + posting)}) {
        const Status changed = session().exec(change);
        ASSERT_FALSE(changed.ok()) << change.constData();
        EXPECT_TRUE(changed.error().message.contains(QLatin1String("append-only")))
            << qPrintable(changed.error().message);
    }
}

TEST_F(LedgerSealTest, AStampTheServiceForgesForItsOtherTransactionIsReplaced)
{
    const QByteArray open = openServiceTransaction();
    // A second login of the service writes an empty posting naming the
    // first one's transaction, to fill it from there.
    auto stamped = m_otherService->scalar(
        "INSERT INTO keel.ledger_transactions (kind, written_in, written_at) VALUES "
        "('adjustment', " +
        open + ") RETURNING written_in = pg_current_xact_id() AND written_at = now()");
    ASSERT_TRUE(stamped.ok()) << qPrintable(stamped.error().message);
    EXPECT_EQ(*stamped, QStringLiteral("t"));
    expectSealedInOpenTransaction();
}

TEST_F(LedgerSealTest, ARestoredPostingWhoseIdComesAroundAgainStaysSealed)
{
    // A logical dump restores postings with their stamps, and the new
    // cluster's transaction ids pass through theirs again.
    const QByteArray open = openServiceTransaction();
    const QByteArray sameId = open.left(open.indexOf(','));
    exec("BEGIN; SET LOCAL session_replication_role = replica; "
         "INSERT INTO keel.ledger_transactions (kind, written_in, written_at) VALUES "
         "('adjustment', " +
         sameId + ", now() - interval '400 days'); COMMIT");
    expectSealedInOpenTransaction();
}

TEST_F(LedgerSealTest, AFunctionThatPostsInsideASavepointStillPosts)
{
    // Exception blocks in PL/pgSQL run in subtransactions, whose ids differ
    // from the top-level one the stamp records.
    serviceRuns("BEGIN; SAVEPOINT inner_block; INSERT INTO keel.ledger_transactions (kind) "
                "VALUES ('adjustment'); RELEASE inner_block; SAVEPOINT next; " +
                pair(Newest, 25) + "; RELEASE next; COMMIT");
    EXPECT_EQ(balance(), QStringLiteral("25"));
}
