// The whole console (its database thread, its change feed and its window)
// connected to a real pg_auto_failover formation through a multi-host DSN,
// as an operator would connect it: when the primary is failed over, the
// Overview comes back by itself, listening again, and shows what was written
// on the new primary without anyone pressing refresh.

#include "FailoverCluster.h"
#include "ServerAccountAccess.h"

#include "core/db/LibpqConnection.h"
#include "core/db/MigrationSource.h"
#include "core/db/Migrator.h"
#include "core/db/QtSqlConnections.h"
#include "ui/ConsoleSession.h"
#include "ui/ConsoleSettings.h"
#include "ui/MainWindow.h"
#include "ui/OverviewView.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <functional>
#include <numeric>

namespace keel::test {
namespace {

qint64 created(OverviewView *overview)
{
    const QList<qint64> series = overview->data().series(QStringLiteral("idempotency.new"));
    return std::accumulate(series.cbegin(), series.cend(), qint64(0));
}

// A rollup row for the last minute, and the notification the gateway sends
// after flushing one, on whichever node is primary now.
Status writeRollup(const ConnectionSettings &formation, int count, const QByteArray &source)
{
    Result<LibpqConnection> primary = LibpqConnection::open(formation);
    if (!primary)
        return primary.error();
    const QByteArray minute =
        QByteArray::number((QDateTime::currentSecsSinceEpoch() / 60 - 1) * 60);
    return primary->exec("INSERT INTO keel.metrics_minute (metric, le_micros, minute, source, "
                         "count, total) VALUES ('idempotency.new', 0, to_timestamp(" +
                         minute + "), '" + source + "', " + QByteArray::number(count) +
                         ", 0); NOTIFY keel_metrics");
}

TEST(ConsoleFailoverTest, TheOverviewShowsWritesOnTheNewPrimaryWithoutARefresh)
{
    ASSERT_TRUE(FailoverCluster::available())
        << "pg_autoctl is missing (packaging/install-deps installs postgresql-15-auto-failover)";
    QTemporaryDir directory;
    ASSERT_TRUE(directory.isValid());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, directory.path());
    letServerAccountThrough(directory.path());
    auto formation = FailoverCluster::start(directory.path());
    ASSERT_TRUE(formation.ok()) << qPrintable(formation.error().message);
    const ConnectionSettings settings = (*formation)->settings(QStringLiteral("keel"));
    {
        Result<QSqlDatabase> db = QtSqlConnections::connect(settings, QStringLiteral("keel-test"));
        ASSERT_TRUE(db.ok()) << qPrintable(db.error().message);
        Result<QList<Migration>> migrations = MigrationSource::load();
        ASSERT_TRUE(migrations.ok());
        Result<int> applied = Migrator(*db, *migrations).migrate();
        ASSERT_TRUE(applied.ok()) << qPrintable(applied.error().message);
        QtSqlConnections::closeThreadConnections();
    }
    ASSERT_TRUE(writeRollup(settings, 23, "before").ok());

    ConsoleSettings consoleSettings;
    ConsoleSession console(settings, std::nullopt, &consoleSettings);
    OverviewView *overview = console.window()->overview();
    QSignalSpy failed(overview, &OverviewView::refreshFailed);
    // Refreshes come from the console itself (its timer and its change feed).
    const auto waitFor = [&](const std::function<bool()> &done, int timeoutMs) {
        QElapsedTimer waited;
        waited.start();
        QSignalSpy refreshed(overview, &OverviewView::refreshed);
        while (!done() && waited.elapsed() < timeoutMs)
            refreshed.wait(200);
        return done();
    };
    ASSERT_TRUE(waitFor([&] { return created(overview) == 23 && overview->liveUpdates(); }, 30000))
        << "before the failover: " << created(overview);

    const int before = (*formation)->primaryPort();
    ASSERT_TRUE((*formation)->failOver().ok());
    ASSERT_TRUE(waitFor(
        [&] { return (*formation)->primaryPort() != before && (*formation)->healthy(); }, 120000))
        << "the formation did not fail over";
    // The change feed finds the new primary by itself and listens there again.
    ASSERT_TRUE(waitFor([&] { return overview->liveUpdates(); }, 60000));

    // Shown within 10 s, well before the 30 s poll of a live Overview: the
    // notification on the new primary reached it.
    ASSERT_TRUE(writeRollup(settings, 19, "after").ok());
    EXPECT_TRUE(waitFor([&] { return created(overview) == 42; }, 10000))
        << "after the failover the Overview shows " << created(overview) << " (live updates "
        << overview->liveUpdates() << ", " << failed.size() << " failed refreshes)";
}

} // namespace
} // namespace keel::test
