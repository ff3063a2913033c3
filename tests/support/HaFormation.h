#pragma once

#include "core/Result.h"
#include "core/db/ConnectionSettings.h"

#include <QList>
#include <QString>

#include <optional>
#include <vector>

namespace keel::test {

// A highly available PostgreSQL the chaos suite runs keel on and fails
// over: pg_auto_failover (FailoverCluster) or Patroni on etcd
// (PatroniCluster). Nodes are named by their PostgreSQL port.
class HaFormation {
public:
    // One node as the HA engine and the node itself see it.
    struct Node {
        QString name;
        int port = 0;
        QString reportedState;      // what the engine last heard from it
        QString goalState;          // what the engine wants it to be ("" if it has no such notion)
        bool keeperRunning = false; // its supervisor (pg_autoctl run, patroni)
        bool reachable = false;
        bool writable = false; // up and not in recovery
    };

    virtual ~HaFormation() = default;

    // Which engine, for what the run prints.
    virtual QString engine() const = 0;
    // Every node, only the writable one accepted (target_session_attrs=read-write).
    virtual ConnectionSettings settings(const QString &database) const = 0;
    // One node only, not the multi-host DSN: for reading what each holds.
    virtual ConnectionSettings nodeSettings(int port, const QString &database) const = 0;
    // The primary's machine dies (SIGKILL of its supervisor and PostgreSQL),
    // or is shut down for maintenance (SIGTERM of its supervisor); the engine
    // must promote another node on its own. Each returns the node's port.
    virtual Result<int> crashPrimary() = 0;
    virtual Result<int> shutDownPrimary() = 0;
    // An operator's planned switchover, begun and not waited for: the
    // primary hands over to the synchronous standby and follows it, its node
    // never down. Returns the old primary's port; an engine whose switchover
    // is not safe while keel writes refuses.
    // `manualFailover`: asked for as an operator's manual failover to the
    // standby, where the engine has one (patronictl failover), not a switchover.
    virtual Result<int> beginSwitchover(bool manualFailover) = 0;
    // The node's supervisor started again; it must rejoin as a standby.
    virtual Status restartNode(int port) = 0;
    // A primary and a standby, each where the engine wants it.
    virtual bool healthy() = 0;
    // healthy(), and the primary replicates synchronously right now.
    virtual bool synchronous() = 0;
    // The writable node's port as the engine sees it (0: none).
    virtual int primaryPort() = 0;
    // Primaries taken away by crashPrimary() and shutDownPrimary(), and
    // switchovers begun.
    virtual int failovers() const = 0;
    // Every supervisor runs but for nodes taken away and not yet restarted.
    virtual bool supervisorsRunning() const = 0;
    virtual QList<Node> nodes() = 0;
    // The read replica the console reads from, one node streaming from the
    // primary that never becomes it; none unless the formation was asked for it.
    virtual std::optional<ConnectionSettings> replicaSettings(const QString &) const
    {
        return std::nullopt;
    }
    // Its name as the primary's pg_stat_replication shows it (application_name).
    virtual QString replicaName() const { return {}; }

protected:
    // Every node on loopback by port, as the server account, only the
    // writable one accepted: what keel is given in production.
    static ConnectionSettings multiHostSettings(const std::vector<int> &ports,
                                                const QString &database);
    // The primary at `primary` commits synchronously right now: it names
    // synchronous standbys and one streams as sync or quorum.
    static bool replicatesSynchronously(const ConnectionSettings &primary);
};

} // namespace keel::test
