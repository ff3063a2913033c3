#include "MigratedDatabaseTest.h"

#include "core/db/LibpqConnection.h"
#include "core/db/QtSqlConnections.h"

#include <QSqlQuery>
#include <QVariant>

using namespace keel;
using keel::test::MigratedDatabaseTest;

namespace {

constexpr char InsufficientPrivilege[] = "42501";

QStringList keelTables(QSqlDatabase db)
{
    QSqlQuery query(db);
    EXPECT_TRUE(query.exec(QStringLiteral(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'keel' ORDER BY tablename")));
    QStringList tables;
    while (query.next())
        tables << query.value(0).toString();
    return tables;
}

QString firstColumn(QSqlDatabase db, const QString &table)
{
    QSqlQuery query(db);
    query.prepare(QStringLiteral("SELECT column_name FROM information_schema.columns WHERE "
                                 "table_schema = 'keel' AND table_name = ? AND is_identity = 'NO' "
                                 "ORDER BY ordinal_position "
                                 "LIMIT 1"));
    query.addBindValue(table);
    EXPECT_TRUE(query.exec() && query.next());
    return query.value(0).toString();
}

} // namespace

class RolesTest : public MigratedDatabaseTest {
protected:
    void SetUp() override
    {
        MigratedDatabaseTest::SetUp();
        m_tables = keelTables(db());
        ASSERT_GE(m_tables.size(), 20);
    }
    QStringList m_tables;
};

TEST_F(RolesTest, AuditorCannotWriteAnyTable)
{
    auto auditor = LibpqConnection::open(loginAs(QStringLiteral("keel_auditor")));
    ASSERT_TRUE(auditor.ok()) << qPrintable(auditor.error().message);
    for (const QString &table : std::as_const(m_tables)) {
        const QByteArray name = "keel." + table.toLatin1();
        // Any column will do for UPDATE: the privilege check comes before any row.
        const QByteArray column = firstColumn(db(), table).toLatin1();
        const QByteArrayList statements{
            QByteArray("INSERT INTO " + name + " DEFAULT VALUES"),
            QByteArray("UPDATE " + name + " SET " + column + " = " + column),
            QByteArray("DELETE FROM " + name), QByteArray("TRUNCATE " + name)};
        for (const QByteArray &statement : statements) {
            Status result = auditor->exec(statement);
            EXPECT_FALSE(result.ok()) << statement.constData();
            EXPECT_EQ(auditor->lastSqlState(), QLatin1String(InsufficientPrivilege))
                << statement.constData() << ": "
                << qPrintable(result.ok() ? QString() : result.error().message);
        }
    }
}

TEST_F(RolesTest, AuditorReadsEveryTableButSigningSecrets)
{
    auto auditor = LibpqConnection::open(loginAs(QStringLiteral("keel_auditor")));
    ASSERT_TRUE(auditor.ok());
    for (const QString &table : std::as_const(m_tables)) {
        auto read = auditor->scalar("SELECT count(*) FROM keel." + table.toLatin1());
        if (table == QLatin1String("merchant_secrets")) {
            EXPECT_FALSE(read.ok());
            EXPECT_EQ(auditor->lastSqlState(), QLatin1String(InsufficientPrivilege));
        } else {
            EXPECT_TRUE(read.ok()) << qPrintable(table) << ": "
                                   << qPrintable(read.ok() ? QString() : read.error().message);
        }
    }
}

TEST_F(RolesTest, SreCannotMoveMoneyOrReadMerchants)
{
    auto sre = LibpqConnection::open(loginAs(QStringLiteral("keel_sre")));
    ASSERT_TRUE(sre.ok());
    EXPECT_FALSE(
        sre->exec("INSERT INTO keel.ledger_transactions (kind) VALUES ('adjustment')").ok());
    EXPECT_EQ(sre->lastSqlState(), QLatin1String(InsufficientPrivilege));
    EXPECT_FALSE(sre->scalar("SELECT count(*) FROM keel.merchants").ok());
    EXPECT_TRUE(sre->scalar("SELECT count(*) FROM keel.sagas").ok());
}

TEST_F(RolesTest, GatewayCannotProposeOrApproveOperatorActions)
{
    auto gateway = LibpqConnection::open(loginAs(QStringLiteral("keel_gateway")));
    ASSERT_TRUE(gateway.ok());
    EXPECT_FALSE(gateway
                     ->exec("INSERT INTO keel.operator_actions (kind, target_type, target_id, "
                            "reason) VALUES ('refund', 'charge', '1', 'because')")
                     .ok());
    EXPECT_EQ(gateway->lastSqlState(), QLatin1String(InsufficientPrivilege));
    EXPECT_FALSE(gateway->scalar("SELECT count(*) FROM keel.approvals").ok());
}

TEST_F(RolesTest, ApproverCannotApproveTheirOwnProposal)
{
    // One person holding both roles is exactly the case maker-checker exists for.
    const ConnectionSettings both = loginAs(QStringLiteral("keel_operator"));
    auto admin = LibpqConnection::open(settings());
    ASSERT_TRUE(admin.ok());
    ASSERT_TRUE(
        admin->exec("GRANT keel_approver TO " + both.value(QStringLiteral("user")).toLatin1())
            .ok());

    auto maker = LibpqConnection::open(both);
    ASSERT_TRUE(maker.ok());
    auto proposal = maker->scalar(
        "INSERT INTO keel.operator_actions (kind, target_type, target_id, reason, proposed_by, "
        "targets) VALUES ('outbox.resend', 'outbox', '42', 'broker fixed, ticket 881', "
        "'someone_else', '[{\"id\": \"42\", \"version\": \"1\"}]') "
        "RETURNING id::text || ' ' || proposed_by");
    ASSERT_TRUE(proposal.ok()) << qPrintable(proposal.error().message);
    const QString id = proposal->section(u' ', 0, 0);
    // The client's claimed identity was replaced by the session user.
    EXPECT_EQ(proposal->section(u' ', 1), both.value(QStringLiteral("user")));

    Status own = maker->exec("INSERT INTO keel.approvals (action_id, decision) VALUES (" +
                             id.toLatin1() + ", 'approve')");
    ASSERT_FALSE(own.ok());
    EXPECT_EQ(maker->lastSqlState(), QLatin1String(InsufficientPrivilege));
    EXPECT_TRUE(own.error().message.contains(QLatin1String("maker-checker")));

    auto checker = LibpqConnection::open(loginAs(QStringLiteral("keel_approver")));
    ASSERT_TRUE(checker.ok());
    // An approval names the content its approver was shown; blind ones are refused.
    Status blind = checker->exec("INSERT INTO keel.approvals (action_id, decision) VALUES (" +
                                 id.toLatin1() + ", 'approve')");
    EXPECT_FALSE(blind.ok());
    Status other = checker->exec(
        "INSERT INTO keel.approvals (action_id, decision, seen_hash) SELECT id, 'approve', "
        "content_hash FROM keel.operator_actions WHERE id = " +
        id.toLatin1());
    EXPECT_TRUE(other.ok()) << qPrintable(other.ok() ? QString() : other.error().message);
}
