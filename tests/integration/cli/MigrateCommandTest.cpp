#include "DatabaseTest.h"
#include "KeelProcess.h"

#include "core/db/LibpqConnection.h"
#include "core/db/MigrationSource.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <memory>
#include <vector>

using namespace keel;
using keel::test::DatabaseTest;
using keel::test::runKeel;

class MigrateCommandTest : public DatabaseTest {
protected:
    QString dsn() const { return settings().conninfo(); }
    QString scalar(const QByteArray &sql)
    {
        auto session = LibpqConnection::open(settings());
        EXPECT_TRUE(session.ok());
        auto value = session.ok() ? session->scalar(sql) : Result<QString>(session.error());
        EXPECT_TRUE(value.ok()) << sql.constData();
        return value.ok() ? *value : QString();
    }
};

TEST_F(MigrateCommandTest, FourConcurrentMigratorsApplyEachMigrationExactlyOnce)
{
    const int shipped = int(MigrationSource::load()->size());
    std::vector<std::unique_ptr<QProcess>> processes;
    for (int i = 0; i < 4; ++i) {
        auto process = std::make_unique<QProcess>();
        process->start(test::keelBinary(),
                       {QStringLiteral("migrate"), QStringLiteral("--db"), dsn()});
        processes.push_back(std::move(process));
    }
    int appliedLines = 0;
    for (auto &process : processes) {
        ASSERT_TRUE(process->waitForFinished(60000));
        const QString out = QString::fromLocal8Bit(process->readAllStandardOutput());
        EXPECT_EQ(process->exitCode(), 0) << process->readAllStandardError().constData();
        appliedLines += int(out.count(QLatin1String("applied ")));
    }
    EXPECT_EQ(appliedLines, shipped);
    EXPECT_EQ(
        scalar("SELECT count(*) || '/' || count(DISTINCT version) FROM keel.schema_migrations"),
        QStringLiteral("%1/%1").arg(shipped));
}

TEST_F(MigrateCommandTest, SecondRunSaysUpToDateAndStatusListsVersions)
{
    auto first = runKeel({QStringLiteral("migrate"), QStringLiteral("--db"), dsn()});
    ASSERT_EQ(first.exitCode, 0) << qPrintable(first.err);
    EXPECT_TRUE(first.out.contains(QLatin1String("applied 0001_schema_v1")));
    auto second = runKeel({QStringLiteral("migrate"), QStringLiteral("--db"), dsn()});
    ASSERT_EQ(second.exitCode, 0);
    EXPECT_TRUE(second.out.contains(QLatin1String("up to date"))) << qPrintable(second.out);
    EXPECT_FALSE(second.out.contains(QLatin1String("applied 0")));
    auto status = runKeel(
        {QStringLiteral("migrate"), QStringLiteral("--db"), dsn(), QStringLiteral("--status")});
    ASSERT_EQ(status.exitCode, 0);
    EXPECT_TRUE(status.out.contains(QLatin1String("applied  0001_schema_v1")));
    EXPECT_TRUE(status.out.contains(QLatin1String("0 pending")));
}

TEST_F(MigrateCommandTest, StatusOnAnEmptyDatabaseListsPendingAndWritesNothing)
{
    auto status = runKeel(
        {QStringLiteral("migrate"), QStringLiteral("--db"), dsn(), QStringLiteral("--status")});
    ASSERT_EQ(status.exitCode, 0) << qPrintable(status.err);
    EXPECT_TRUE(status.out.contains(QLatin1String("pending  0001_schema_v1")));
    EXPECT_EQ(scalar("SELECT count(*) FROM pg_namespace WHERE nspname = 'keel'"),
              QStringLiteral("0"));
}

TEST_F(MigrateCommandTest, TamperedMigrationExitsWithSchemaErrorNamingTheVersion)
{
    QTemporaryDir dir;
    const QDir source(MigrationSource::embeddedDirectory());
    for (const QString &file : source.entryList({QStringLiteral("*.sql")}, QDir::Files))
        QFile::copy(source.filePath(file), dir.filePath(file));
    ASSERT_EQ(runKeel({QStringLiteral("migrate"), QStringLiteral("--db"), dsn()}).exitCode, 0);
    QFile file(dir.filePath(QStringLiteral("0001_schema_v1.sql")));
    ASSERT_TRUE(file.open(QIODevice::Append));
    file.write("\nSELECT 1;\n");
    file.close();
    auto result = runKeel({QStringLiteral("migrate"), QStringLiteral("--db"), dsn(),
                           QStringLiteral("--migrations"), dir.path()});
    EXPECT_EQ(result.exitCode, 5);
    EXPECT_TRUE(
        result.err.startsWith(QLatin1String("keel migrate: migration 0001_schema_v1 was changed")))
        << qPrintable(result.err);
    EXPECT_EQ(result.err.count(u'\n'), 1); // one line
}

TEST_F(MigrateCommandTest, NewerSchemaExitsWithSchemaError)
{
    ASSERT_EQ(runKeel({QStringLiteral("migrate"), QStringLiteral("--db"), dsn()}).exitCode, 0);
    auto session = LibpqConnection::open(settings());
    ASSERT_TRUE(session.ok());
    ASSERT_TRUE(session
                    ->exec("INSERT INTO keel.schema_migrations (version, name, checksum) "
                           "VALUES (999, 'future', repeat('a', 64))")
                    .ok());
    auto result = runKeel({QStringLiteral("migrate"), QStringLiteral("--db"), dsn()});
    EXPECT_EQ(result.exitCode, 5);
    EXPECT_TRUE(result.err.contains(QLatin1String("version 999"))) << qPrintable(result.err);
    EXPECT_TRUE(result.err.contains(QLatin1String("newer keel")));
}

TEST_F(MigrateCommandTest, ACommandRefusesASchemaOlderThanItsBinaryAndWritesNothing)
{
    QTemporaryDir older;
    const QDir source(MigrationSource::embeddedDirectory());
    QStringList files = source.entryList({QStringLiteral("*.sql")}, QDir::Files, QDir::Name);
    ASSERT_GT(files.size(), 1);
    files.removeLast();
    for (const QString &file : files)
        QFile::copy(source.filePath(file), older.filePath(file));
    ASSERT_EQ(runKeel({QStringLiteral("migrate"), QStringLiteral("--db"), dsn(),
                       QStringLiteral("--migrations"), older.path()})
                  .exitCode,
              0);

    QTemporaryDir dir;
    const QString statement = dir.filePath(QStringLiteral("statement.csv"));
    QFile file(statement);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write("reference,channel_reference,type,amount,currency,fee,occurred_at\n"
               "ch_old0000001,SIM-OLD-1,payment,19.99,USD,0.58,2026-12-01T08:00:00Z\n");
    file.close();
    const QStringList import = {QStringLiteral("recon"),
                                QStringLiteral("import"),
                                QStringLiteral("--db"),
                                dsn(),
                                QStringLiteral("--channel"),
                                QStringLiteral("sim"),
                                QStringLiteral("--format"),
                                QStringLiteral("csv"),
                                statement};

    auto refused = runKeel(import);
    EXPECT_EQ(refused.exitCode, 5);
    EXPECT_TRUE(refused.err.contains(QLatin1String("run: keel migrate")))
        << qPrintable(refused.err);
    EXPECT_EQ(refused.err.count(u'\n'), 1);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_statements"), QStringLiteral("0"));
    EXPECT_EQ(
        runKeel({QStringLiteral("audit"), QStringLiteral("ledger"), QStringLiteral("--db"), dsn()})
            .exitCode,
        5);
    // The relay refuses too, before it publishes anything.
    auto relay = runKeel({QStringLiteral("relay"), QStringLiteral("--db"), dsn(),
                          QStringLiteral("--amqp"), QStringLiteral("amqp://127.0.0.1:1")});
    EXPECT_EQ(relay.exitCode, 5);
    EXPECT_TRUE(relay.err.contains(QLatin1String("run: keel migrate"))) << qPrintable(relay.err);

    ASSERT_EQ(runKeel({QStringLiteral("migrate"), QStringLiteral("--db"), dsn()}).exitCode, 0);
    auto imported = runKeel(import);
    EXPECT_EQ(imported.exitCode, 0) << qPrintable(imported.err);
    EXPECT_EQ(scalar("SELECT line_count FROM keel.recon_statements"), QStringLiteral("1"));
}

TEST_F(MigrateCommandTest, MalformedDsnIsAUsageError)
{
    auto result = runKeel(
        {QStringLiteral("migrate"), QStringLiteral("--db"), QStringLiteral("host=x nonsense")});
    EXPECT_EQ(result.exitCode, 2);
    EXPECT_TRUE(result.err.contains(QLatin1String("invalid connection string")))
        << qPrintable(result.err);
}

TEST_F(MigrateCommandTest, ServerThatIsDownIsAConnectionError)
{
    auto result = runKeel({QStringLiteral("migrate"), QStringLiteral("--db"),
                           QStringLiteral("postgresql://keel@127.0.0.1:1/keel?connect_timeout=3")});
    EXPECT_EQ(result.exitCode, 3);
    EXPECT_TRUE(result.err.contains(QLatin1String("cannot connect"))) << qPrintable(result.err);
    EXPECT_EQ(result.err.count(u'\n'), 1);
}

TEST_F(MigrateCommandTest, UnknownCommandAndOptionAreUsageErrors)
{
    EXPECT_EQ(runKeel({QStringLiteral("frobnicate")}).exitCode, 2);
    auto badOption = runKeel({QStringLiteral("migrate"), QStringLiteral("--frob")});
    EXPECT_EQ(badOption.exitCode, 2);
    EXPECT_TRUE(badOption.err.contains(QLatin1String("frob")));
    auto help = runKeel({QStringLiteral("--help")});
    EXPECT_EQ(help.exitCode, 0);
    EXPECT_TRUE(help.out.contains(QLatin1String("migrate")) &&
                help.out.contains(QLatin1String("Exit codes")));
    auto commandHelp = runKeel({QStringLiteral("migrate"), QStringLiteral("--help")});
    EXPECT_EQ(commandHelp.exitCode, 0);
    EXPECT_TRUE(commandHelp.out.contains(QLatin1String("--status")));
}
