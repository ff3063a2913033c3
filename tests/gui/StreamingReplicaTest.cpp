// The console's read replica, for real: a hot standby made from the test
// server with pg_basebackup and fed by streaming replication. Dashboards read
// from it while "who am I" and change notifications stay on the primary.
#include "MigratedDatabaseTest.h"
#include "WaitUntil.h"

#include "core/db/LibpqConnection.h"
#include "core/db/QtSqlConnections.h"
#include "core/read/ReplicaLag.h"
#include "devkit/servers/EmbeddedCluster.h"
#include "devkit/servers/ServerBinaries.h"
#include "ui/ConsoleSettings.h"
#include "ui/MainWindow.h"
#include "ui/OverviewView.h"
#include "ui/QueryWorker.h"
#include "ui/ReplicaLagLabel.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
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
        // settings that make it a standby of it (-R). Its own replication
        // slot (-C -S) keeps the primary's WAL until the standby has it: other
        // tests create databases on the shared server all the while, and a
        // checkpoint could otherwise recycle the segment the standby must
        // stream from, leaving it stuck before the rows a test waits for.
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
                      QStringLiteral("-R"), QStringLiteral("-C"), QStringLiteral("-S"),
                      QString::fromLatin1(m_slot), QStringLiteral("-X"), QStringLiteral("stream"),
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
        dropSlot();
        DatabaseTest::TearDown();
    }

    QString scalar(const ConnectionSettings &where, const QByteArray &sql)
    {
        auto session = LibpqConnection::open(where);
        if (!session)
            return QStringLiteral("<cannot connect: %1>").arg(session.error().message);
        auto value = session->scalar(sql);
        return value.ok() ? *value : QStringLiteral("<error: %1>").arg(value.error().message);
    }

    // A slot left behind would hold the shared server's WAL for good. Its
    // walsender may outlive the standby's stop by a moment.
    void dropSlot()
    {
        const QByteArray drop =
            "SELECT count(pg_terminate_backend(active_pid)) + "
            "count(pg_drop_replication_slot(slot_name)) FILTER (WHERE NOT active) FROM "
            "pg_replication_slots WHERE slot_name = '" +
            m_slot + "'";
        const QByteArray left =
            "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + m_slot + "'";
        EXPECT_TRUE(keel::test::waitUntil(
            [&] {
                (void)scalar(settings(), drop);
                return scalar(settings(), left) == QLatin1String("0");
            },
            15000))
            << "replication slot " << m_slot.constData() << " is still there";
    }

    // One row committed on the primary (this minute's count), for replication
    // to carry: "" when done, else why not.
    QString commitOnPrimary()
    {
        auto primary = LibpqConnection::open(settings());
        if (!primary)
            return primary.error().message;
        const Status done = primary->exec(
            "INSERT INTO keel.metrics_minute (metric, le_micros, minute, source, "
            "count, total) VALUES ('idempotency.new', 0, date_trunc('minute', now()), "
            "'gw', 1, 0)");
        return done ? QString() : done.error().message;
    }

    // What the standby said, for a test that waited on it in vain.
    std::string standbyLog() const
    {
        QFile log(m_standby->logFile());
        if (!log.open(QIODevice::ReadOnly))
            return "(no standby log)";
        const QByteArray text = log.readAll();
        return "standby log:\n" + text.right(4000).toStdString();
    }

    // Unique on a server other runs may share.
    const QByteArray m_slot = "keel_test_standby_" +
                              QByteArray::number(QCoreApplication::applicationPid()) + '_' +
                              QByteArray::number(QRandomGenerator::global()->generate64(), 36);
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
    ASSERT_EQ(scalar(standby, "SELECT count(*) FROM keel.metrics_minute"), QStringLiteral("1"))
        << standbyLog();

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

// The status bar says how far the replica trails, asked as an operator logs
// in: current while it keeps up, behind while its replay is paused and the
// primary commits, current again once it catches up.
TEST_F(StreamingReplicaTest, TheStatusBarSaysHowFarTheReplicaTrails)
{
    const ConnectionSettings standby = m_standby->settings(m_database);
    const ConnectionSettings onPrimary = loginAs(QStringLiteral("keel_operator"));
    ConnectionSettings onReplica = onPrimary;
    for (const QString &keyword : {QStringLiteral("host"), QStringLiteral("port")})
        onReplica.set(keyword, standby.value(keyword));
    // The login reaches the standby by replication too.
    ASSERT_TRUE(keel::test::waitUntil(
        [&] { return scalar(onReplica, "SELECT 1") == QLatin1String("1"); }, 15000))
        << qPrintable(scalar(onReplica, "SELECT 1")) << " " << qPrintable(onReplica.conninfo());

    ConsoleSettings consoleSettings;
    QueryWorker primaryWorker(onPrimary);
    QueryWorker replicaWorker(onReplica);
    primaryWorker.start();
    replicaWorker.start();
    {
        MainWindow window(&primaryWorker, &replicaWorker, &consoleSettings);
        ReplicaLagLabel *label = window.replicaLag();
        ASSERT_NE(label, nullptr);
        const auto answered = [&](const auto &holds) {
            return keel::test::waitUntil(
                [&] {
                    // The label asks on its own timer.
                    QCoreApplication::processEvents();
                    return holds();
                },
                20000);
        };
        EXPECT_TRUE(answered([&] { return label->lag() && label->lag()->caughtUp; }))
            << qPrintable(label->text()) << standbyLog();
        EXPECT_EQ(label->text(), QStringLiteral("Replica: current"));

        ASSERT_EQ(scalar(standby, "SELECT count(*) FROM pg_wal_replay_pause()"),
                  QStringLiteral("1"));
        ASSERT_EQ(commitOnPrimary(), QString());
        EXPECT_TRUE(answered([&] {
            return label->lag() && !label->lag()->caughtUp && label->lag()->seconds >= 2;
        })) << qPrintable(label->text());
        EXPECT_TRUE(label->text().startsWith(QLatin1String("Replica: ")) &&
                    label->text().endsWith(QLatin1String(" s behind")))
            << qPrintable(label->text());

        ASSERT_EQ(scalar(standby, "SELECT count(*) FROM pg_wal_replay_resume()"),
                  QStringLiteral("1"));
        EXPECT_TRUE(answered([&] { return label->lag() && label->lag()->caughtUp; }))
            << qPrintable(label->text());
    }
    primaryWorker.stop();
    replicaWorker.stop();
}

// Each way of being caught up on its own, asked directly: by position (the
// primary's clock an hour past the last replayed commit), and by a commit
// replayed under a second before the primary's clock when the position is
// out of reach; as old as that commit by the primary's clock otherwise.
TEST_F(StreamingReplicaTest, CaughtUpIsJudgedByPositionOrByAFreshCommitOnThePrimarysClock)
{
    const ConnectionSettings standby = m_standby->settings(m_database);
    ASSERT_EQ(commitOnPrimary(), QString());
    const QString inserted = scalar(settings(), "SELECT pg_current_wal_insert_lsn()::text");
    ASSERT_TRUE(keel::test::waitUntil(
        [&] {
            return scalar(standby, "SELECT pg_last_wal_replay_lsn() >= '" + inserted.toUtf8() +
                                       "'::pg_lsn") == QLatin1String("t");
        },
        30000))
        << standbyLog();
    const double replayedAt =
        scalar(standby, "SELECT extract(epoch FROM pg_last_xact_replay_timestamp())").toDouble();
    ASSERT_GT(replayedAt, 0.0);
    {
        auto replica = QtSqlConnections::connect(standby);
        ASSERT_TRUE(replica.ok()) << qPrintable(replica.error().message);
        const auto askedAt = [&](const QString &position, double secondsAfterReplay) {
            return replicaLag(*replica,
                              {position, QString::number(replayedAt + secondsAfterReplay, 'f', 6)});
        };
        const QString unreached = QStringLiteral("FFFFFFFF/FFFFFFFF");

        const Result<ReplicaLag> byPosition = askedAt(inserted, 3600.5);
        ASSERT_TRUE(byPosition.ok()) << qPrintable(byPosition.error().message);
        EXPECT_TRUE(byPosition->standby);
        EXPECT_TRUE(byPosition->caughtUp);
        EXPECT_EQ(byPosition->seconds, std::optional<qint64>(3600));

        const Result<ReplicaLag> fresh = askedAt(unreached, 0.5);
        ASSERT_TRUE(fresh.ok());
        EXPECT_TRUE(fresh->caughtUp);
        EXPECT_EQ(fresh->seconds, std::optional<qint64>(0));

        const Result<ReplicaLag> stale = askedAt(unreached, 5.5);
        ASSERT_TRUE(stale.ok());
        EXPECT_FALSE(stale->caughtUp);
        EXPECT_EQ(stale->seconds, std::optional<qint64>(5));
    }
    QtSqlConnections::closeThreadConnections();
}
