// Patroni with etcd, Debian's packages, as the second HA engine keel runs on:
// three etcd members and two PostgreSQL members in strict synchronous mode.
// A writer commits through keel's multi-host DSN while an operator switches
// the leader over and while the leader's machine dies; every commit that
// was acknowledged must be on the new leader, the old leader must come back
// as a standby (not a second primary), and both must end holding the same rows.

#include "PatroniCluster.h"
#include "QtPrinters.h"
#include "ServerAccountAccess.h"
#include "WaitUntil.h"

#include "core/db/LibpqConnection.h"

#include <QScopeGuard>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>

namespace keel::test {
namespace {

// Commits one row at a time until told to stop, reconnecting whenever the
// leader goes, and remembers every id PostgreSQL acknowledged.
class AcknowledgedWriter {
public:
    explicit AcknowledgedWriter(ConnectionSettings settings)
        : m_thread([this, settings] { run(settings); })
    {}
    ~AcknowledgedWriter() { stop(); }

    void stop()
    {
        m_stopping = true;
        if (m_thread.joinable())
            m_thread.join();
    }
    QList<qint64> acknowledged()
    {
        const std::lock_guard lock(m_mutex);
        return m_acknowledged;
    }
    int reconnects() const { return m_reconnects; }

private:
    void run(const ConnectionSettings &settings)
    {
        qint64 next = 1;
        while (!m_stopping) {
            Result<LibpqConnection> session = LibpqConnection::open(settings);
            if (!session) {
                ++m_reconnects;
                std::this_thread::sleep_for(std::chrono::milliseconds(200));
                continue;
            }
            while (!m_stopping) {
                const qint64 id = next++;
                if (!session->query("INSERT INTO acknowledged (id) VALUES ($1)",
                                    {QByteArray::number(id)}))
                    break; // not acknowledged: it may or may not be there
                const std::lock_guard lock(m_mutex);
                m_acknowledged.append(id);
            }
            ++m_reconnects;
        }
    }

    std::atomic<bool> m_stopping{false};
    std::atomic<int> m_reconnects{0};
    std::mutex m_mutex;
    QList<qint64> m_acknowledged;
    std::thread m_thread;
};

// How many of `ids` the member at `index` lacks.
qint64 missingOn(PatroniCluster &cluster, int index, const QList<qint64> &ids)
{
    Result<LibpqConnection> member =
        LibpqConnection::open(cluster.memberSettings(index, QStringLiteral("keel")));
    if (!member)
        return -1;
    QByteArray list = "{";
    for (qsizetype i = 0; i < ids.size(); ++i)
        list += (i ? "," : "") + QByteArray::number(ids[i]);
    list += '}';
    Result<PgRows> missing =
        member->query("SELECT count(*) FROM unnest($1::bigint[]) AS i(id) "
                      "WHERE NOT EXISTS (SELECT 1 FROM acknowledged a WHERE a.id = i.id)",
                      {list});
    return missing ? missing->toInt64(0, 0) : -1;
}

TEST(PatroniFailoverTest, NoAcknowledgedCommitIsLostToASwitchoverOrALeaderCrash)
{
    ASSERT_TRUE(PatroniCluster::available())
        << "patroni or etcd is missing (packaging/install-deps installs them)";
    QTemporaryDir directory;
    ASSERT_TRUE(directory.isValid());
    // A failed run keeps Patroni's, etcd's and PostgreSQL's logs for reading.
    const auto keepLogs = qScopeGuard([&] {
        if (::testing::Test::HasFailure()) {
            directory.setAutoRemove(false);
            std::fprintf(stderr, "logs kept in %s\n", qPrintable(directory.path()));
        }
    });
    letServerAccountThrough(directory.path());
    auto started = PatroniCluster::start(directory.path());
    ASSERT_TRUE(started.ok()) << qPrintable(started.error().message);
    PatroniCluster &cluster = **started;
    const ConnectionSettings settings = cluster.settings(QStringLiteral("keel"));
    {
        auto session = LibpqConnection::open(settings);
        ASSERT_TRUE(session.ok()) << qPrintable(session.error().message);
        ASSERT_TRUE(session->exec("CREATE TABLE acknowledged (id bigint PRIMARY KEY)").ok());
    }

    // A lone leader in strict mode holds commits: the writer gives up on one
    // after 5 s (not acknowledged) rather than hang the test.
    ConnectionSettings writing = settings;
    writing.set(QStringLiteral("options"), QStringLiteral("-c statement_timeout=5000"));
    AcknowledgedWriter writer(writing);
    const auto writes = [&](qsizetype more) {
        const qsizetype target = writer.acknowledged().size() + more;
        return waitUntil([&] { return writer.acknowledged().size() >= target; }, 90000);
    };
    ASSERT_TRUE(writes(200));

    const int first = cluster.leaderIndex();
    ASSERT_GE(first, 0);
    Status switched = cluster.switchover();
    ASSERT_TRUE(switched.ok()) << qPrintable(switched.error().message);
    EXPECT_NE(cluster.leaderIndex(), first);
    ASSERT_TRUE(writes(200)) << "the writer goes on on the new leader";
    // Patroni promotes only the member its /sync key names. Until the old
    // leader has caught up and been named, a crash leaves no leader at all
    // (safe, but not available): the crash comes once the cluster is whole.
    ASSERT_TRUE(waitUntil([&] { return cluster.healthy(); }, 120000));

    Result<int> crashed = cluster.crashLeader();
    ASSERT_TRUE(crashed.ok()) << qPrintable(crashed.error().message);
    ASSERT_TRUE(waitUntil([&] { return cluster.leaderIndex() == 1 - *crashed; }, 90000))
        << "the standby is promoted once the dead leader's key expires";
    // Strict synchronous mode: a lone leader takes no commit (two members
    // trade availability for this; a third would keep writing), so the
    // writes resume once the crashed member is back.
    ASSERT_TRUE(cluster.restartMember(*crashed).ok());
    ASSERT_TRUE(waitUntil([&] { return cluster.healthy(); }, 180000))
        << "the crashed member rejoins as the synchronous standby";
    EXPECT_EQ(cluster.leaderIndex(), 1 - *crashed) << "and not as a second leader";
    ASSERT_TRUE(writes(200));
    writer.stop();

    const QList<qint64> acknowledged = writer.acknowledged();
    EXPECT_GE(writer.reconnects(), 2);
    const int leader = cluster.leaderIndex();
    ASSERT_GE(leader, 0);
    EXPECT_EQ(missingOn(cluster, leader, acknowledged), 0);
    // The crashed member is a standby as PostgreSQL itself says, not only Patroni.
    auto standby =
        LibpqConnection::open(cluster.memberSettings(1 - leader, QStringLiteral("keel")));
    ASSERT_TRUE(standby.ok());
    const Result<QString> recovering = standby->scalar("SELECT pg_is_in_recovery()");
    EXPECT_TRUE(recovering && *recovering == QLatin1String("t"));
    // It has replayed all of it once it has caught up.
    EXPECT_TRUE(
        waitUntil([&] { return missingOn(cluster, 1 - leader, acknowledged) == 0; }, 60000));
}

} // namespace
} // namespace keel::test
