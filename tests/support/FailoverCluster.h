#pragma once

#include "HaFormation.h"

#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

class QProcess;

namespace keel::test {

// A highly available PostgreSQL from Debian's pg_auto_failover, all local
// and private to one directory: a monitor, and a primary with a synchronous
// secondary, each run by its own `pg_autoctl run` as the server account.
// keel reaches it through a multi-host DSN that only accepts the writable
// node, as production keel would.
class FailoverCluster final : public HaFormation {
public:
    using Node = HaFormation::Node;

    static bool available();
    static Result<std::unique_ptr<FailoverCluster>> start(const QString &directory);
    ~FailoverCluster() override;

    QString engine() const override { return QStringLiteral("pg_auto_failover"); }

    // host=a,b port=pa,pb dbname=... target_session_attrs=read-write
    ConnectionSettings settings(const QString &database) const override;
    // The monitor promotes the secondary and demotes the primary; returns
    // once the monitor has accepted (the switch itself takes seconds).
    Status failOver();
    // The primary's machine dies: its keeper and its PostgreSQL are killed
    // with SIGKILL, nothing shuts down cleanly, and the monitor must notice
    // on its own (health checks tuned to seconds) and promote the secondary.
    // Returns the crashed node's port.
    Result<int> crashPrimary() override;
    // The primary's machine shut down for maintenance: its keeper is stopped
    // (SIGTERM), stopping its PostgreSQL; the monitor notices and promotes
    // the secondary. (perform_failover is not used under load: in
    // pg_auto_failover 2.0 it turns the primary's synchronous replication
    // off while the secondary is being promoted; see docs/findings.md.)
    Result<int> shutDownPrimary() override;
    // Refused: pg_auto_failover 2.0's `perform switchover` turns synchronous
    // replication off mid-switchover (docs/findings.md).
    Result<int> beginSwitchover(bool manualFailover) override;
    // The crashed node's keeper is started again; it must rejoin as a
    // secondary (pg_rewind) instead of coming back as a second primary.
    Status restartNode(int port) override;
    // Both nodes are back in their places, primary and secondary.
    bool healthy() override;
    // healthy(), and the primary is replicating synchronously right now: its
    // synchronous_standby_names is set and a standby streams as sync/quorum.
    // pg_auto_failover turns synchronous replication off (wait_primary) while
    // it thinks the secondary unhealthy; a failover then loses what the
    // primary acknowledged meanwhile.
    bool synchronous() override;
    // Which node port is primary now (0: none).
    int primaryPort() override;
    int failovers() const override { return m_failovers; }
    // The monitor's and each node's `pg_autoctl run` are all still running
    // (but for a node crashed on purpose and not yet restarted):
    // a node whose supervisor died keeps its PostgreSQL running unfenced.
    bool supervisorsRunning() const override;
    // Every node, asked directly; two writable nodes is a split brain.
    QList<Node> nodes() override;
    // One node only, not the multi-host DSN: for reading what each holds.
    ConnectionSettings nodeSettings(int port, const QString &database) const override;

private:
    FailoverCluster() = default;
    Status createMonitor();
    Status createNode(const QString &name, int port);
    Status waitUntilHealthy(int timeoutMs);
    Status tuneMonitor();
    Result<std::size_t> primaryIndex(); // fails while a stopped node is away
    ConnectionSettings monitorSettings() const;
    Result<QString> askMonitor(const QByteArray &sql);
    std::unique_ptr<QProcess> autoctl(const QStringList &arguments, const QString &log);

    QString m_directory;
    int m_monitorPort = 0;
    std::vector<int> m_nodePorts;
    std::vector<QString> m_nodeNames;
    QSet<int> m_crashed; // indexes into m_services killed on purpose, not yet restarted
    std::vector<std::unique_ptr<QProcess>> m_services;
    int m_failovers = 0;
};

} // namespace keel::test
