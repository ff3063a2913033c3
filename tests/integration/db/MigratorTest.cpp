#include "DatabaseTest.h"

#include "core/db/Migrator.h"
#include "core/db/QtSqlConnections.h"

#include <QDir>
#include <QFile>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QVariant>

using namespace keel;
using keel::test::DatabaseTest;

namespace {

QList<Migration> shipped()
{
    auto migrations = MigrationSource::load();
    EXPECT_TRUE(migrations.ok());
    return migrations.ok() ? *migrations : QList<Migration>{};
}

// Copies the shipped migrations into a directory a test may edit.
QString copyOfShippedMigrations(const QTemporaryDir &dir)
{
    const QDir source(MigrationSource::embeddedDirectory());
    for (const QString &file : source.entryList({QStringLiteral("*.sql")}, QDir::Files))
        QFile::copy(source.filePath(file), dir.filePath(file));
    return dir.path();
}

int scalarInt(QSqlDatabase db, const QString &sql)
{
    QSqlQuery query(db);
    EXPECT_TRUE(query.exec(sql)) << qPrintable(sql);
    return query.next() ? query.value(0).toInt() : -1;
}

} // namespace

class MigratorTest : public DatabaseTest {};

TEST_F(MigratorTest, AppliesEveryMigrationToAnEmptyDatabase)
{
    const QList<Migration> migrations = shipped();
    QList<int> reported;
    Migrator migrator(db(), migrations);
    auto applied = migrator.migrate([&](const Migration &m, qint64) { reported << m.version; });
    ASSERT_TRUE(applied.ok()) << qPrintable(applied.error().message);
    EXPECT_EQ(*applied, migrations.size());
    EXPECT_EQ(reported.size(), migrations.size());
    EXPECT_EQ(scalarInt(db(), QStringLiteral("SELECT count(*) FROM keel.schema_migrations")),
              migrations.size());
    for (const char *table :
         {"idempotency_keys", "charges", "refunds", "payment_state", "payment_events",
          "ledger_accounts", "ledger_entries", "sagas", "saga_steps", "saga_events", "tcc_barrier",
          "outbox", "inbox", "suspense_cases", "approvals", "operator_actions", "audit_log"}) {
        EXPECT_EQ(scalarInt(db(), QStringLiteral("SELECT count(*) FROM pg_tables WHERE "
                                                 "schemaname = 'keel' AND tablename = '%1'")
                                      .arg(QLatin1String(table))),
                  1)
            << table;
    }
    EXPECT_TRUE(migrator.checkCurrent().ok());
}

TEST_F(MigratorTest, SecondRunIsANoOp)
{
    Migrator migrator(db(), shipped());
    ASSERT_TRUE(migrator.migrate().ok());
    QSqlQuery before(db());
    ASSERT_TRUE(before.exec(QStringLiteral(
        "SELECT string_agg(version || checksum || applied_at::text, ',' ORDER BY version) "
        "FROM keel.schema_migrations")));
    before.next();
    const QString snapshot = before.value(0).toString();

    auto again = migrator.migrate();
    ASSERT_TRUE(again.ok()) << qPrintable(again.error().message);
    EXPECT_EQ(*again, 0);
    QSqlQuery after(db());
    ASSERT_TRUE(after.exec(before.lastQuery()));
    after.next();
    EXPECT_EQ(after.value(0).toString(), snapshot);
}

TEST_F(MigratorTest, StatusListsAppliedAndPendingWithoutChangingAnything)
{
    Migrator migrator(db(), shipped());
    auto empty = migrator.status();
    ASSERT_TRUE(empty.ok());
    for (const MigrationStatus &entry : *empty)
        EXPECT_FALSE(entry.applied);
    EXPECT_EQ(
        scalarInt(db(), QStringLiteral("SELECT count(*) FROM pg_namespace WHERE nspname = 'keel'")),
        0);
    EXPECT_FALSE(migrator.checkCurrent().ok());

    ASSERT_TRUE(migrator.migrate().ok());
    auto full = migrator.status();
    ASSERT_TRUE(full.ok());
    for (const MigrationStatus &entry : *full) {
        EXPECT_TRUE(entry.applied);
        EXPECT_TRUE(entry.appliedAt.isValid());
    }
}

TEST_F(MigratorTest, RefusesAnAppliedMigrationWhoseFileChanged)
{
    QTemporaryDir dir;
    const QString path = copyOfShippedMigrations(dir);
    auto original = MigrationSource::load(path);
    ASSERT_TRUE(original.ok());
    ASSERT_TRUE(Migrator(db(), *original).migrate().ok());

    QFile file(QDir(path).filePath(QStringLiteral("0002_role_grants.sql")));
    ASSERT_TRUE(file.open(QIODevice::Append));
    file.write("\n-- an innocent-looking edit\n");
    file.close();
    // A new migration beside the edit must not be applied either.
    QFile added(QDir(path).filePath(
        QStringLiteral("%1_extra.sql").arg(original->size() + 1, 4, 10, QLatin1Char('0'))));
    ASSERT_TRUE(added.open(QIODevice::WriteOnly));
    added.write("CREATE TABLE keel.should_not_exist (id int);");
    added.close();

    auto tampered = MigrationSource::load(path);
    ASSERT_TRUE(tampered.ok());
    auto result = Migrator(db(), *tampered).migrate();
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().kind, ErrorKind::Schema);
    EXPECT_TRUE(result.error().message.contains(QLatin1String("0002_role_grants")))
        << qPrintable(result.error().message);
    EXPECT_EQ(scalarInt(db(), QStringLiteral("SELECT count(*) FROM pg_tables WHERE tablename = "
                                             "'should_not_exist'")),
              0);
}

TEST_F(MigratorTest, RefusesADatabaseNewerThanThisBinary)
{
    const QList<Migration> migrations = shipped();
    ASSERT_TRUE(Migrator(db(), migrations).migrate().ok());
    QSqlQuery insert(db());
    ASSERT_TRUE(insert.exec(
        QStringLiteral(
            "INSERT INTO keel.schema_migrations (version, name, checksum) VALUES (%1, 'future', "
            "repeat('0', 64))")
            .arg(migrations.size() + 1)));
    auto result = Migrator(db(), migrations).migrate();
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().kind, ErrorKind::Schema);
    EXPECT_TRUE(
        result.error().message.contains(QStringLiteral("version %1").arg(migrations.size() + 1)))
        << qPrintable(result.error().message);
}

TEST_F(MigratorTest, AFailingMigrationLeavesNothingOfItself)
{
    QTemporaryDir dir;
    const QString path = copyOfShippedMigrations(dir);
    const int next = int(shipped().size()) + 1;
    QFile broken(
        QDir(path).filePath(QStringLiteral("%1_broken.sql").arg(next, 4, 10, QLatin1Char('0'))));
    ASSERT_TRUE(broken.open(QIODevice::WriteOnly));
    broken.write("CREATE TABLE half_done (id int);\nSELECT * FROM no_such_table;\n");
    broken.close();
    auto migrations = MigrationSource::load(path);
    ASSERT_TRUE(migrations.ok());
    auto result = Migrator(db(), *migrations).migrate();
    ASSERT_FALSE(result.ok());
    EXPECT_TRUE(result.error().message.contains(QStringLiteral("_broken")));
    EXPECT_TRUE(result.error().message.contains(QLatin1String("line 2")))
        << qPrintable(result.error().message);
    EXPECT_EQ(scalarInt(db(), QStringLiteral(
                                  "SELECT count(*) FROM pg_tables WHERE tablename = 'half_done'")),
              0);
    EXPECT_EQ(scalarInt(db(), QStringLiteral("SELECT max(version) FROM keel.schema_migrations")),
              next - 1);
}

TEST_F(MigratorTest, NoLoginRoleOwnsAnything)
{
    migrate();
    EXPECT_EQ(
        scalarInt(
            db(),
            QStringLiteral(
                "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "JOIN pg_roles r ON r.oid = c.relowner WHERE n.nspname = 'keel' AND "
                "(r.rolcanlogin OR r.rolname <> 'keel_owner')")),
        0);
    EXPECT_EQ(
        scalarInt(
            db(),
            QStringLiteral(
                "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                "JOIN pg_roles r ON r.oid = p.proowner WHERE n.nspname = 'keel' AND "
                "r.rolcanlogin")),
        0);
    EXPECT_EQ(scalarInt(db(), QStringLiteral(
                                  "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'keel\\_%' "
                                  "AND rolcanlogin")),
              0);
}

TEST_F(MigratorTest, EveryKeelFunctionPinsItsSearchPath)
{
    migrate();
    EXPECT_EQ(
        scalarInt(
            db(),
            QStringLiteral(
                "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                "WHERE n.nspname = 'keel' AND NOT coalesce(p.proconfig::text LIKE "
                "'%search_path=keel%', false)")),
        0);
}

// Migration 0021 on a database that 0020 left in the state issue #25 found:
// a saga still parked after a person wrote its case off, resumable and able
// to refund from the merchant what suspense had already given up. The
// upgrade closes it as resolved and links the write-off to its case.
TEST_F(MigratorTest, TheRepairsMigrationClosesSagasWhoseCaseWasAlreadyWrittenOff)
{
    const QList<Migration> all = shipped();
    ASSERT_GE(all.size(), 21);
    ASSERT_TRUE(Migrator(db(), all.mid(0, 20)).migrate().ok());
    QSqlQuery seed(db());
    ASSERT_TRUE(seed.exec(QStringLiteral(
        "WITH s AS (INSERT INTO keel.sagas (kind, public_id, status) VALUES ('order', "
        "  'saga_writtenoff00001', 'parked') RETURNING id), "
        "t AS (INSERT INTO keel.ledger_transactions (kind) VALUES ('write_off') RETURNING id) "
        "INSERT INTO keel.suspense_cases (saga_id, amount, reason, status, resolved_at, "
        "  resolution) SELECT s.id, 0, 'compensation failed', 'written_off', now(), "
        "  jsonb_build_object('kind', 'case.write_off', 'ledger_transaction', t.id) FROM s, t")))
        << qPrintable(seed.lastError().text());
    ASSERT_TRUE(Migrator(db(), all).migrate().ok());
    EXPECT_EQ(scalarInt(db(), QStringLiteral("SELECT count(*) FROM keel.sagas WHERE status = "
                                             "'resolved' AND public_id = 'saga_writtenoff00001'")),
              1);
    EXPECT_EQ(scalarInt(db(), QStringLiteral("SELECT count(*) FROM keel.saga_events WHERE event = "
                                             "'case_resolved'")),
              1);
    EXPECT_EQ(scalarInt(db(), QStringLiteral("SELECT count(*) FROM keel.ledger_transactions t "
                                             "JOIN keel.suspense_cases c ON c.id = "
                                             "t.suspense_case_id WHERE t.kind = 'write_off'")),
              1);
}
