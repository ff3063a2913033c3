#pragma once

#include "HaFormation.h"

#include <QSet>

#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <vector>

class QProcess;

namespace keel::test {

// PostgreSQL made highly available by Debian's Patroni on a three-member
// etcd, all local and private to one directory: three etcd members, and two
// PostgreSQL members in strict synchronous mode (the leader accepts no
// commit its synchronous standby has not flushed). Patroni and PostgreSQL run
// as the server account. keel reaches the leader through a multi-host DSN
// that accepts only the writable member. On request, a third member is a
// read replica for the console: never a candidate for leader nor a
// synchronous standby, streaming from whichever member leads.
class PatroniCluster final : public HaFormation {
public:
    static bool available();
    static Result<std::unique_ptr<PatroniCluster>> start(const QString &directory,
                                                         bool readReplica = false);
    ~PatroniCluster() override;

    QString engine() const override { return QStringLiteral("Patroni"); }
    // host=a,b port=pa,pb dbname=... target_session_attrs=read-write
    ConnectionSettings settings(const QString &database) const override;
    // One member only: for reading what each holds.
    ConnectionSettings memberSettings(int index, const QString &database) const;

    // `patronictl switchover` to the other member, as an operator would for
    // maintenance; returns once Patroni reports the new leader.
    Status switchover();
    // The leader's machine dies: its Patroni and PostgreSQL SIGKILLed. The
    // standby is promoted once the leader key expires. Returns its index.
    Result<int> crashLeader();
    // The crashed member's Patroni started again; it rejoins as a standby.
    Status restartMember(int index);

    // Which member leads now, by its REST API (-1: none).
    int leaderIndex() const;
    // Both members running, one leader and one synchronous standby streaming.
    bool healthy() override;
    // The members that may lead: the read replica is not one of them.
    int members() const { return m_candidates; }

    // As the chaos suite fails it over (HaFormation): members by port.
    ConnectionSettings nodeSettings(int port, const QString &database) const override;
    Result<int> crashPrimary() override;
    // SIGTERM to the leader's Patroni: it stops its PostgreSQL and lets the
    // leader key go, and the standby takes it.
    Result<int> shutDownPrimary() override;
    // `patronictl switchover` to the other member, or `patronictl failover`
    // to it, in the background.
    Result<int> beginSwitchover(bool manualFailover) override;
    Status restartNode(int port) override;
    bool synchronous() override;
    int primaryPort() override;
    int failovers() const override { return m_failovers; }
    bool supervisorsRunning() const override;
    QList<Node> nodes() override;
    std::optional<ConnectionSettings> replicaSettings(const QString &database) const override;
    QString replicaName() const override;

private:
    PatroniCluster() = default;
    Status startEtcd();
    Status writeMemberConfig(int index, bool readReplica) const;
    Status startMember(int index);
    Status waitUntil(const std::function<bool()> &condition, int timeoutMs,
                     const QString &what) const;
    QString memberName(int index) const;
    int indexOfPort(int port) const;
    void killPostmaster(int index) const;
    // The member's view of the cluster (GET /cluster on its REST API).
    Result<QByteArray> restGet(int index, const QString &path) const;
    // patronictl switchover from `leader` to `candidate`, started; what it
    // says goes to `log` when given, else stays readable from the process.
    std::unique_ptr<QProcess> startSwitchover(int leader, int candidate, const QString &log = {},
                                              bool asFailover = false) const;

    QString m_directory;
    QString m_scope;
    std::vector<int> m_etcdClientPorts;
    std::vector<int> m_etcdPeerPorts;
    std::vector<int> m_pgPorts;
    std::vector<int> m_restPorts;
    std::vector<std::unique_ptr<QProcess>> m_etcd;
    std::vector<std::unique_ptr<QProcess>> m_patroni;
    std::unique_ptr<QProcess> m_switchover; // the last one begun
    QSet<int> m_taken;                      // members taken away on purpose, not yet restarted
    int m_failovers = 0;
    int m_candidates = 0; // members 0..m_candidates-1 may lead; one more is the read replica
};

} // namespace keel::test
