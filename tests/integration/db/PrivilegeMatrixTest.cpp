#include "MigratedDatabaseTest.h"

#include "core/db/LibpqConnection.h"

#include <QMap>

#include <QSqlQuery>
#include <QVariant>
#include <array>

using namespace keel;
using keel::test::MigratedDatabaseTest;

// Who may read and write each table, as PostgreSQL enforces it, checked by
// attempting every statement as a real login of each role. The tables come
// from the catalogue: a table added without a row here fails the test, so
// nobody adds one without deciding who may touch it.
namespace {

constexpr char InsufficientPrivilege[] = "42501";

const QStringList Roles{QStringLiteral("keel_auditor"), QStringLiteral("keel_sre"),
                        QStringLiteral("keel_operator"), QStringLiteral("keel_approver"),
                        QStringLiteral("keel_gateway")};

// Per table, one code per role in Roles' order: r(ead whole rows), i(nsert),
// u(pdate its first writable column), d(elete); '-' where refused. Column
// grants narrower than the table (an SRE's next_attempt_at) are not listed:
// the guarded-actions tests cover those paths.
const QMap<QString, std::array<const char *, 5>> Expected{
    //                       auditor  sre     operator approver gateway
    {QStringLiteral("action_kinds"), {"r---", "r---", "r---", "r---", "----"}},
    {QStringLiteral("approvals"), {"r---", "r---", "r---", "ri--", "----"}},
    {QStringLiteral("audit_chain_head"), {"r---", "r---", "r---", "r---", "----"}},
    {QStringLiteral("audit_log"), {"r---", "r---", "r---", "r---", "----"}},
    {QStringLiteral("channel_notifications"), {"r---", "r---", "r---", "r---", "ri--"}},
    // The service settles a copy through its settled_at column alone.
    {QStringLiteral("channel_reverses"), {"r---", "r---", "r---", "r---", "ri--"}},
    {QStringLiteral("charges"), {"r---", "----", "r---", "r---", "riu-"}},
    {QStringLiteral("currencies"), {"r---", "r---", "r---", "r---", "r---"}},
    {QStringLiteral("idempotency_keys"), {"r---", "----", "----", "----", "riud"}},
    {QStringLiteral("inbox"), {"r---", "r---", "----", "----", "ri-d"}},
    {QStringLiteral("ledger_accounts"), {"r---", "----", "r---", "r---", "ri--"}},
    {QStringLiteral("ledger_entries"), {"r---", "----", "r---", "r---", "ri--"}},
    {QStringLiteral("ledger_transactions"), {"r---", "----", "r---", "r---", "ri--"}},
    {QStringLiteral("merchant_secrets"), {"----", "----", "----", "----", "r---"}},
    {QStringLiteral("merchants"), {"r---", "----", "r---", "r---", "r---"}},
    {QStringLiteral("metrics_minute"), {"r---", "r---", "r---", "r---", "riud"}},
    {QStringLiteral("metrics_ten_minutes"), {"r---", "r---", "r---", "r---", "riud"}},
    {QStringLiteral("metrics_ten_minutes_fold"), {"r---", "r---", "r---", "r---", "r-u-"}},
    {QStringLiteral("notification_attempts"), {"r---", "r---", "r---", "r---", "ri--"}},
    {QStringLiteral("notifications"), {"r---", "r---", "r---", "r---", "riu-"}},
    {QStringLiteral("operator_actions"), {"r---", "ri--", "ri--", "r---", "----"}},
    {QStringLiteral("ops_policy"), {"r---", "r---", "r---", "r---", "----"}},
    {QStringLiteral("outbox"), {"r---", "r---", "r---", "r---", "riud"}},
    {QStringLiteral("payment_events"), {"r---", "----", "r---", "r---", "ri--"}},
    {QStringLiteral("payment_state"), {"r---", "r---", "r---", "r---", "riu-"}},
    {QStringLiteral("payment_state_fold"), {"r---", "----", "----", "----", "riu-"}},
    {QStringLiteral("payment_state_minute"), {"r---", "r---", "r---", "r---", "riud"}},
    {QStringLiteral("payment_state_totals"), {"r---", "r---", "r---", "r---", "riu-"}},
    {QStringLiteral("refunds"), {"r---", "----", "r---", "r---", "riu-"}},
    {QStringLiteral("saga_events"), {"r---", "r---", "r---", "r---", "ri--"}},
    {QStringLiteral("saga_steps"), {"r---", "r---", "r---", "r---", "riu-"}},
    {QStringLiteral("sagas"), {"r---", "r---", "r---", "r---", "riu-"}},
    {QStringLiteral("schema_migrations"), {"r---", "r---", "r---", "r---", "r---"}},
    // The service writes neither runs nor breaks: keel.recon_record_run()
    // writes both from a run's result (migration 0031, BreakResolutionTest),
    // called through recon_record_run_in_break_order() (migration 0047).
    {QStringLiteral("record_channel_references"), {"r---", "----", "r---", "r---", "r---"}},
    {QStringLiteral("recon_breaks"), {"r---", "----", "r---", "r---", "r---"}},
    {QStringLiteral("recon_withdrawn_lines"), {"r---", "----", "r---", "r---", "r---"}},
    {QStringLiteral("recon_channels"), {"r---", "r---", "r---", "r---", "r---"}},
    {QStringLiteral("recon_lines"), {"r---", "----", "r---", "r---", "ri--"}},
    {QStringLiteral("recon_runs"), {"r---", "----", "r---", "r---", "r---"}},
    {QStringLiteral("recon_statements"), {"r---", "----", "r---", "r---", "ri--"}},
    {QStringLiteral("sim_channel_operations"), {"r---", "----", "r---", "r---", "ri--"}},
    {QStringLiteral("suspense_case_notes"), {"r---", "r---", "ri--", "ri--", "----"}},
    {QStringLiteral("suspense_cases"), {"r---", "r---", "r---", "r---", "ri--"}},
    {QStringLiteral("tcc_barrier"), {"r---", "----", "----", "----", "ri--"}},
};

QString firstWritableColumn(QSqlDatabase db, const QString &table)
{
    QSqlQuery query(db);
    query.prepare(QStringLiteral(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'keel' "
        "AND table_name = ? AND is_identity = 'NO' AND is_generated = 'NEVER' "
        "ORDER BY ordinal_position LIMIT 1"));
    query.addBindValue(table);
    EXPECT_TRUE(query.exec() && query.next()) << qPrintable(table);
    return query.value(0).toString();
}

// The statements that exercise each privilege without changing a row: the
// privilege check comes before any row is read.
QByteArrayList attempts(const QByteArray &table, const QByteArray &column)
{
    return {"SELECT * FROM " + table + " LIMIT 0",
            "INSERT INTO " + table + " (" + column + ") SELECT NULL WHERE false",
            "UPDATE " + table + " SET " + column + " = " + column + " WHERE false",
            "DELETE FROM " + table + " WHERE false"};
}

} // namespace

class PrivilegeMatrixTest : public MigratedDatabaseTest {};

TEST_F(PrivilegeMatrixTest, EveryTableHasItsAccessDecidedForEveryRole)
{
    QSqlQuery query(db());
    ASSERT_TRUE(query.exec(QStringLiteral(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'keel' ORDER BY tablename")));
    QStringList tables;
    while (query.next())
        tables << query.value(0).toString();
    for (const QString &table : std::as_const(tables))
        EXPECT_TRUE(Expected.contains(table))
            << "keel." << qPrintable(table)
            << " is new: add it to PrivilegeMatrixTest's Expected with who may read and write it";
    for (auto row = Expected.cbegin(); row != Expected.cend(); ++row)
        EXPECT_TRUE(tables.contains(row.key())) << "no table " << qPrintable(row.key());
}

TEST_F(PrivilegeMatrixTest, EachRoleCanDoExactlyWhatTheMatrixSaysAndNothingMore)
{
    for (int role = 0; role < Roles.size(); ++role) {
        auto login = LibpqConnection::open(loginAs(Roles[role]));
        ASSERT_TRUE(login.ok()) << qPrintable(login.error().message);
        for (auto row = Expected.cbegin(); row != Expected.cend(); ++row) {
            const QByteArray table = "keel." + row.key().toLatin1();
            const QByteArrayList statements =
                attempts(table, firstWritableColumn(db(), row.key()).toLatin1());
            const QLatin1String allowed(row.value()[size_t(role)]);
            for (int op = 0; op < statements.size(); ++op) {
                const Status result = login->exec(statements[op]);
                const bool refused =
                    !result.ok() && login->lastSqlState() == QLatin1String(InsufficientPrivilege);
                EXPECT_EQ(refused, allowed.at(op) == QLatin1Char('-'))
                    << qPrintable(Roles[role]) << ": " << statements[op].constData() << " -> "
                    << qPrintable(result.ok() ? QStringLiteral("ok") : result.error().message);
            }
            // Nobody but the owner empties a table.
            if (!login->exec("TRUNCATE " + table).ok())
                EXPECT_EQ(login->lastSqlState(), QLatin1String(InsufficientPrivilege))
                    << qPrintable(Roles[role]) << " TRUNCATE " << table.constData();
            else
                ADD_FAILURE() << qPrintable(Roles[role]) << " may TRUNCATE " << table.constData();
        }
    }
}

TEST_F(PrivilegeMatrixTest, NoLoginButTheDefinersWritesTheAuditTrail)
{
    for (const QString &role : Roles) {
        auto login = LibpqConnection::open(loginAs(role));
        ASSERT_TRUE(login.ok());
        const Status forged =
            login->exec("INSERT INTO keel.audit_log (action, object_type, object_id) "
                        "VALUES ('approve', 'operator_action', '1')");
        EXPECT_FALSE(forged.ok()) << qPrintable(role);
        EXPECT_EQ(login->lastSqlState(), QLatin1String(InsufficientPrivilege)) << qPrintable(role);
        EXPECT_FALSE(login->exec("SELECT keel.audit('approve', 'operator_action', '1', '{}')").ok())
            << qPrintable(role) << " may call audit() itself";
    }
}
