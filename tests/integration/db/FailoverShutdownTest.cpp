// A primary shut down for maintenance whose PostgreSQL will not stop in
// time. pg_autoctl's supervisor, when its services outlive its grace after
// SIGTERM, signals its whole process group. Each of the formation's
// supervisors must lead a group of its own: sharing the test's, one node's
// slow shutdown once stopped the monitor, the other node and keel's
// services with it, and no node was ever promoted (CI, seed 1796515621590).

#include "FailoverCluster.h"
#include "QtPrinters.h"
#include "ServerAccountAccess.h"
#include "WaitUntil.h"

#include "core/db/LibpqConnection.h"

#include <QTemporaryDir>

#include <csignal>

#include <gtest/gtest.h>

namespace keel::test {
namespace {

TEST(FailoverShutdownTest, APrimaryWhoseShutdownHangsTakesNothingElseDown)
{
    ASSERT_TRUE(FailoverCluster::available())
        << "pg_autoctl is missing (packaging/install-deps installs postgresql-15-auto-failover)";
    QTemporaryDir directory;
    ASSERT_TRUE(directory.isValid());
    letServerAccountThrough(directory.path());
    auto started = FailoverCluster::start(directory.path());
    ASSERT_TRUE(started.ok()) << qPrintable(started.error().message);
    FailoverCluster &formation = **started;

    const int primary = formation.primaryPort();
    int standby = 0;
    for (const FailoverCluster::Node &node : formation.nodes())
        standby = node.port != primary ? node.port : standby;
    ASSERT_NE(standby, 0);

    // A standby that stops confirming what it received: the primary's
    // shutdown then waits for it (up to wal_sender_timeout, a minute).
    Result<QString> receiver = [&]() -> Result<QString> {
        Result<LibpqConnection> session =
            LibpqConnection::open(formation.nodeSettings(standby, QStringLiteral("postgres")));
        if (!session)
            return session.error();
        return session->scalar("SELECT pid FROM pg_stat_wal_receiver");
    }();
    ASSERT_TRUE(receiver.ok() && !receiver->isEmpty()) << "the standby streams nothing";
    const pid_t receiverPid = pid_t(receiver->toInt());
    ASSERT_EQ(::kill(receiverPid, SIGSTOP), 0);

    // Waits out the keeper's grace (30 s), then kills what is left of it.
    // Had the keeper's group been this test's, the test would be dead here.
    const Result<int> stopped = formation.shutDownPrimary();
    ::kill(receiverPid, SIGCONT);
    ASSERT_TRUE(stopped.ok()) << qPrintable(stopped.error().message);
    EXPECT_EQ(*stopped, primary);

    EXPECT_TRUE(formation.supervisorsRunning())
        << "the monitor's or the standby's pg_autoctl went down with the primary's";
    EXPECT_TRUE(waitUntil([&] { return formation.primaryPort() == standby; }, 60000))
        << "the standby was never promoted";
    Result<LibpqConnection> writable =
        LibpqConnection::open(formation.settings(QStringLiteral("keel")));
    ASSERT_TRUE(writable.ok()) << qPrintable(writable.error().message);
    EXPECT_TRUE(writable->exec("CREATE TABLE written_after_the_shutdown (id int)").ok());
}

} // namespace
} // namespace keel::test
