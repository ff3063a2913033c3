#include "KeelProcess.h"
#include "WaitUntil.h"

#include "core/db/ConnectionSettings.h"
#include "core/db/LibpqConnection.h"
#include "core/db/MigrationSource.h"

#include <gtest/gtest.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace keel;
using keel::test::keelBinary;
using keel::test::runKeel;

namespace {

// A `keel dev` run in the background; killed (and waited for) on destruction.
class DevServer {
public:
    explicit DevServer(const QString &dir, QStringList extra = {})
    {
        m_process.start(keelBinary(),
                        QStringList{QStringLiteral("dev"), QStringLiteral("--dir"), dir} + extra);
    }
    ~DevServer()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(30000);
        }
    }
    // The KEEL_DB line, or empty if the process ended or timed out first.
    // keel dev prints KEEL_DB, KEEL_HTTP and KEEL_API_KEY once ready; all are kept.
    QString waitForDsn(int timeoutMs = 90000)
    {
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < timeoutMs) {
            if (m_process.canReadLine()) {
                const QString line = QString::fromLocal8Bit(m_process.readLine()).trimmed();
                const qsizetype equals = line.indexOf(u'=');
                if (line.startsWith(QLatin1String("KEEL_")) && equals > 0)
                    m_lines.insert(line.left(equals), line.mid(equals + 1));
                if (line.startsWith(QLatin1String("KEEL_API_KEY=")))
                    return m_lines.value(QStringLiteral("KEEL_DB"));
                continue;
            }
            if (m_process.state() == QProcess::NotRunning)
                return {};
            m_process.waitForReadyRead(200);
        }
        return {};
    }
    int terminate(int signal = SIGTERM)
    {
        if (m_process.state() == QProcess::NotRunning)
            return -1;
        ::kill(pid_t(m_process.processId()), signal);
        if (!m_process.waitForFinished(60000))
            return -1;
        return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -signal;
    }
    int waitForExit(int timeoutMs = 30000)
    {
        if (!m_process.waitForFinished(timeoutMs))
            return -1;
        return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
    }
    QString errors() { return QString::fromLocal8Bit(m_process.readAllStandardError()); }
    QString line(const QString &name) const { return m_lines.value(name); }

private:
    QProcess m_process;
    QHash<QString, QString> m_lines;
};

QString scalarAt(const QString &dsn, const QByteArray &sql)
{
    auto settings = ConnectionSettings::parse(dsn);
    if (!settings)
        return QStringLiteral("bad dsn");
    auto session = LibpqConnection::open(*settings);
    if (!session)
        return session.error().message;
    auto value = session->scalar(sql);
    return value ? *value : value.error().message;
}

qint64 postmasterPid(const QString &dir)
{
    QFile file(QDir(dir).filePath(QStringLiteral("postmaster.pid")));
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    return file.readLine().trimmed().toLongLong();
}

bool waitUntilGone(qint64 pid, int timeoutMs = 30000)
{
    return keel::test::waitUntil([&] { return ::kill(pid_t(pid), 0) != 0; }, timeoutMs);
}

QString shortTempDir()
{
    QByteArray pattern = "/tmp/keel-devtest-XXXXXX";
    if (!::mkdtemp(pattern.data()))
        return {};
    // Under root the server runs as another account, which must reach the data dir.
    ::chmod(pattern.constData(), 0755);
    return QString::fromLocal8Bit(pattern) + QStringLiteral("/data");
}

void removeTempDir(const QString &dataDir)
{
    QDir(QFileInfo(dataDir).absolutePath()).removeRecursively();
}

} // namespace

TEST(DevCommand, StartConnectStopRestart)
{
    const QString dir = shortTempDir();
    ASSERT_FALSE(dir.isEmpty());
    QString demoKey;
    {
        DevServer first(dir);
        const QString dsn = first.waitForDsn();
        ASSERT_FALSE(dsn.isEmpty()) << qPrintable(first.errors());
        EXPECT_TRUE(dsn.startsWith(QLatin1String("postgresql://")));
        EXPECT_EQ(scalarAt(dsn, "SELECT count(*) FROM keel.schema_migrations"),
                  QString::number(MigrationSource::load()->size()));
        ASSERT_TRUE(
            LibpqConnection::open(*ConnectionSettings::parse(dsn))
                ->exec(
                    "INSERT INTO keel.merchants (name, api_key_hash) VALUES ('kept', sha256('k'))")
                .ok());
        EXPECT_TRUE(
            first.line(QStringLiteral("KEEL_HTTP")).startsWith(QLatin1String("http://127.0.0.1:")));
        EXPECT_TRUE(
            first.line(QStringLiteral("KEEL_API_KEY")).startsWith(QLatin1String("sk_test_")));
        demoKey = first.line(QStringLiteral("KEEL_API_KEY"));
        // The services log in as production runs them: a keel_gateway member.
        EXPECT_EQ(scalarAt(dsn, "SELECT string_agg(DISTINCT usename, ',') FROM pg_stat_activity "
                                "WHERE application_name LIKE 'keel-%' AND usename <> 'keel'"),
                  QStringLiteral("keel_service"));
        EXPECT_EQ(scalarAt(dsn, "SELECT pg_has_role('keel_service', 'keel_gateway', 'USAGE') AND "
                                "NOT rolsuper FROM pg_roles WHERE rolname = 'keel_service'"),
                  QStringLiteral("t"));
        EXPECT_EQ(first.terminate(SIGTERM), 0) << qPrintable(first.errors());
    }
    EXPECT_EQ(postmasterPid(dir), 0) << "server left running after a clean stop";

    DevServer second(dir);
    QElapsedTimer restart;
    restart.start();
    const QString dsn = second.waitForDsn();
    ASSERT_FALSE(dsn.isEmpty()) << qPrintable(second.errors());
    RecordProperty("restart_ms", int(restart.elapsed()));
    EXPECT_EQ(scalarAt(dsn, "SELECT count(*) FROM keel.merchants WHERE name = 'kept'"),
              QStringLiteral("1"));
    // The demo merchant is made once; its key survives restarts.
    EXPECT_EQ(second.line(QStringLiteral("KEEL_API_KEY")), demoKey);
    EXPECT_EQ(scalarAt(dsn, "SELECT count(*) FROM keel.merchants WHERE name = 'Demo Merchant'"),
              QStringLiteral("1"));
    EXPECT_EQ(second.terminate(SIGINT), 0);
    removeTempDir(dir);
}

TEST(DevCommand, KilledKeelTakesItsServerDownAndARestartRecovers)
{
    const QString dir = shortTempDir();
    {
        DevServer first(dir);
        ASSERT_FALSE(first.waitForDsn().isEmpty()) << qPrintable(first.errors());
        const qint64 pid = postmasterPid(dir);
        ASSERT_GT(pid, 0);
        QFile brokerPid(QDir(dir).filePath(QStringLiteral("rabbitmq/pid")));
        ASSERT_TRUE(brokerPid.open(QIODevice::ReadOnly)) << "keel dev runs a broker";
        const qint64 broker = brokerPid.readAll().trimmed().toLongLong();
        ASSERT_GT(broker, 0);
        first.terminate(SIGKILL);
        EXPECT_TRUE(waitUntilGone(pid)) << "postgres outlived a killed keel dev";
        EXPECT_TRUE(waitUntilGone(broker)) << "RabbitMQ outlived a killed keel dev";
    }
    DevServer second(dir);
    const QString dsn = second.waitForDsn();
    ASSERT_FALSE(dsn.isEmpty()) << qPrintable(second.errors());
    EXPECT_EQ(scalarAt(dsn, "SELECT count(*) > 0 FROM keel.schema_migrations"),
              QStringLiteral("t"));
    EXPECT_EQ(second.terminate(SIGTERM), 0);
    removeTempDir(dir);
}

TEST(DevCommand, StalePostmasterPidFromAKilledServerIsCleared)
{
    const QString dir = shortTempDir();
    {
        DevServer first(dir);
        ASSERT_FALSE(first.waitForDsn().isEmpty()) << qPrintable(first.errors());
        const qint64 pid = postmasterPid(dir);
        ASSERT_GT(pid, 0);
        ::kill(pid_t(pid), SIGKILL); // the postmaster dies without removing its pid file
        // keel dev notices, says so, and exits non-zero on its own.
        EXPECT_EQ(first.waitForExit(), 1);
        EXPECT_TRUE(first.errors().contains(QLatin1String("stopped unexpectedly")));
        ASSERT_TRUE(waitUntilGone(pid));
    }
    ASSERT_TRUE(QFile::exists(QDir(dir).filePath(QStringLiteral("postmaster.pid"))));
    DevServer second(dir);
    const QString dsn = second.waitForDsn();
    ASSERT_FALSE(dsn.isEmpty()) << qPrintable(second.errors());
    EXPECT_EQ(scalarAt(dsn, "SELECT 1"), QStringLiteral("1"));
    EXPECT_EQ(second.terminate(SIGTERM), 0);
    removeTempDir(dir);
}

TEST(DevCommand, MissingServerProgramsAreAnEnvironmentError)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("KEEL_PG_BINDIR"), QStringLiteral("/nonexistent/bin"));
    const QString dir = shortTempDir();
    auto result = runKeel({QStringLiteral("dev"), QStringLiteral("--dir"), dir}, environment);
    EXPECT_EQ(result.exitCode, 4);
    EXPECT_TRUE(result.err.contains(QLatin1String("KEEL_PG_BINDIR"))) << qPrintable(result.err);
    EXPECT_FALSE(QDir(dir).exists()) << "nothing may be created before the check";
    removeTempDir(dir);
}

TEST(DevCommand, DirectoryOwnedBySomeoneElseIsRefused)
{
    // "/" is owned by root and is never the account the server runs as, be it
    // a normal user or, under root, the postgres account.
    auto result = runKeel({QStringLiteral("dev"), QStringLiteral("--dir"), QStringLiteral("/")});
    EXPECT_EQ(result.exitCode, 4);
    EXPECT_TRUE(result.err.contains(QLatin1String("owned by"))) << qPrintable(result.err);
}

TEST(DevCommand, BadPortIsAUsageError)
{
    auto result =
        runKeel({QStringLiteral("dev"), QStringLiteral("--port"), QStringLiteral("seventy")});
    EXPECT_EQ(result.exitCode, 2);
    EXPECT_TRUE(result.err.contains(QLatin1String("--port")));
}
