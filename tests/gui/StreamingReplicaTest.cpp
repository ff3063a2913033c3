// The console's read replica, for real: a hot standby made from the test
// server with pg_basebackup and fed by streaming replication. Dashboards read
// from it while "who am I" and change notifications stay on the primary.
#include "MigratedDatabaseTest.h"
#include "WaitUntil.h"

#include "core/db/LibpqConnection.h"
#include "devkit/servers/EmbeddedCluster.h"
#include "devkit/servers/ServerBinaries.h"
#include "ui/ConsoleSettings.h"
#include "ui/MainWindow.h"
#include "ui/OverviewView.h"
#include "ui/QueryWorker.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>

#include <numeric>

using namespace keel;
using keel::test::MigratedDatabaseTest;

namespace {

class StreamingReplicaTest : public MigratedDatabaseTest {
protected:
    void SetUp() override
    {
        MigratedDatabaseTest::SetUp();
        ASSERT_TRUE(m_work.isValid());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_work.path());
        // The standby may run as another account; it must reach its directory.
        QFile::setPermissions(m_work.path(), QFile::ReadOwner | QFile::WriteOwner |
                                                 QFile::ExeOwner | QFile::ExeGroup |
                                                 QFile::ExeOther | QFile::ReadOther);
        const QString standbyDir = m_work.filePath(QStringLiteral("standby"));
        auto created = EmbeddedCluster::create({standbyDir, 0, false});
        ASSERT_TRUE(created.ok()) << qPrintable(created.error().message);
        m_standby = std::move(created).value();
        const ServiceAccount account = m_standby->account();
        ASSERT_TRUE(account.prepareDirectory(standbyDir).ok());

        // A base backup of the running test server, streamed, with the
        // settings that make it a standby of it (-R).
        auto binaries = ServerBinaries::locate();
        ASSERT_TRUE(binaries.ok());
        ConnectionSettings source = settings();
        source.set(QStringLiteral("dbname"), QStringLiteral("postgres"));
        QProcess backup;
        backup.setProcessEnvironment(EmbeddedCluster::programEnvironment());
        backup.setChildProcessModifier([account] { account.enterInChild(0); });
        backup.setWorkingDirectory(standbyDir);
        backup.start(binaries->program(QStringLiteral("pg_basebackup")),
                     {QStringLiteral("-d"), source.conninfo(), QStringLiteral("-D"), standbyDir,
                      QStringLiteral("-R"), QStringLiteral("-X"), QStringLiteral("stream"),
                      QStringLiteral("-c"), QStringLiteral("fast")});
        ASSERT_TRUE(backup.waitForFinished(120000));
        ASSERT_EQ(backup.exitCode(), 0) << backup.readAllStandardError().constData();
        const Status started = m_standby->start();
        ASSERT_TRUE(started.ok()) << qPrintable(started.error().message);
    }
    void TearDown() override
    {
        if (m_standby)
            (void)m_standby->stop();
        DatabaseTest::TearDown();
    }

    QString scalar(const ConnectionSettings &where, const QByteArray &sql)
    {
        auto session = LibpqConnection::open(where);
        EXPECT_TRUE(session.ok());
        auto value = session->scalar(sql);
        return value.ok() ? *value : QStringLiteral("<error: %1>").arg(value.error().message);
    }

    QTemporaryDir m_work;
    std::unique_ptr<EmbeddedCluster> m_standby;
};

} // namespace

TEST_F(StreamingReplicaTest, TheOverviewReadsWhatReplicationBroughtToTheStandby)
{
    const ConnectionSettings standby = m_standby->settings(m_database);
    ASSERT_EQ(scalar(standby, "SELECT pg_is_in_recovery()"), QStringLiteral("t"));

    const QByteArray minute =
        QByteArray::number((QDateTime::currentSecsSinceEpoch() / 60 - 1) * 60);
    auto primary = LibpqConnection::open(settings());
    ASSERT_TRUE(primary.ok());
    ASSERT_TRUE(primary
                    ->exec("INSERT INTO keel.metrics_minute (metric, le_micros, minute, source, "
                           "count, total) VALUES ('idempotency.new', 0, to_timestamp(" +
                           minute + "), 'gw', 23, 0)")
                    .ok());
    // Replication is asynchronous: wait for the row to arrive.
    (void)keel::test::waitUntil(
        [&] {
            return scalar(standby, "SELECT count(*) FROM keel.metrics_minute") ==
                   QLatin1String("1");
        },
        15000);
    ASSERT_EQ(scalar(standby, "SELECT count(*) FROM keel.metrics_minute"), QStringLiteral("1"));

    ConsoleSettings consoleSettings;
    QueryWorker primaryWorker(settings());
    QueryWorker replicaWorker(standby);
    primaryWorker.start();
    replicaWorker.start();
    {
        MainWindow window(&primaryWorker, &replicaWorker, &consoleSettings);
        QSignalSpy refreshed(window.overview(), &OverviewView::refreshed);
        QSignalSpy failed(window.overview(), &OverviewView::refreshFailed);
        ASSERT_TRUE(refreshed.wait(15000))
            << (failed.isEmpty() ? std::string() : failed.first().first().toString().toStdString());
        const QList<qint64> created =
            window.overview()->data().series(QStringLiteral("idempotency.new"));
        EXPECT_EQ(std::accumulate(created.cbegin(), created.cend(), qint64(0)), 23);
    }
    primaryWorker.stop();
    replicaWorker.stop();
    // The standby takes no writes: the console's reads there can only be reads.
    EXPECT_TRUE(scalar(standby, "INSERT INTO keel.metrics_minute (metric, minute, source) VALUES "
                                "('x', date_trunc('minute', now()), 'x') RETURNING 1")
                    .contains(QLatin1String("read-only")));
}
