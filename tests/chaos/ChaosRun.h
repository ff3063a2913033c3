#pragma once

#include "ChaosChecks.h"
#include "ChaosRecord.h"
#include "ChaosWorld.h"
#include "FaultPlan.h"

#include <QElapsedTimer>
#include <QMap>
#include <QSet>
#include <QTextStream>

#include <functional>
#include <memory>

class QProcess;

namespace keel {
class LibpqConnection;
}

namespace keel::chaos {

class ChaosClient;
struct ClientOptions;
class ChaosWorld;
class InboxConsumer;
class OperatorDesk;
class ReplicaWatch;

struct RunOptions {
    quint64 seed = 0;
    int seconds = 90; // of load under faults
    int clients = 4;
    int recoverySeconds = 240; // to settle everything once the faults stop
    QString directory;         // where the servers and the logs live
    bool failover = false;     // PostgreSQL as an HA formation (pg_auto_failover by default)
    bool patroni = false;      // with failover: the formation is Patroni on etcd
    bool operators = false;    // the operator desk (OperatorDesk) acts during the faults
    bool brokerCluster =
        false;            // RabbitMQ as three clustered nodes, one killed or stopped at a time
    bool replica = false; // with patroni: a read replica for the console, watched (ReplicaWatch)
    // The channel speaks keel's wire, or Alipay's or WeChat Pay's protocol
    // (yuan sales only).
    ChannelProtocol protocol = ChannelProtocol::Keel;
};

// One chaos run: the world started, load and the seed's faults together for
// the given time, everything brought back, and the end checks.
class ChaosRun final {
public:
    ChaosRun(RunOptions options, QTextStream &out);
    ~ChaosRun();

    // 0 when the checks found no violation.
    int run();

private:
    struct Pending {
        qint64 atMs;
        QString what;
        std::function<bool()> action; // false: not yet possible, try again shortly
    };

    void inject(const Fault &fault);
    void switchOver(const Fault &fault);
    void takeBrokerNodeDown(const Fault &fault, qint64 back);
    bool nodeStoppedAndKilled() const;
    void ensureNodeStoppedAndKilled();
    void failPrimary(const Fault &fault, qint64 back);
    void ensureOneFailover();
    bool formationSettled() const;
    void tookFailover();
    void runUntil(qint64 endMs);
    void schedule(qint64 atMs, QString what, std::function<bool()> action);
    void restartAllNow(qint64 budgetMs);
    bool waitUntilServing(qint64 budgetMs);
    qint64 budgetLeft(qint64 wantMs) const;
    bool serving();
    void describeFormation();
    void startSimulate();
    void finishSimulate();
    QString simulateRecordPath() const;
    bool quiet();
    bool prepareDesk();
    bool prepareWatch();
    ClientOptions clientOptions() const;
    int bringBackAndSettle(ChaosClient &client);
    int judge(int openRequests);
    void report(const Verdict &verdict, const QList<Told> &record);

    RunOptions m_options;
    QTextStream &m_out;
    std::unique_ptr<ChaosWorld> m_world;
    std::unique_ptr<InboxConsumer> m_consumer;
    std::unique_ptr<OperatorDesk> m_desk;
    std::unique_ptr<ReplicaWatch> m_watch;
    ClientRecord m_record;
    QElapsedTimer m_clock;
    QList<Fault> m_faults;
    QList<Pending> m_pending;
    QMap<QString, qint64> m_faultCounts;
    QMap<QString, qint64> m_unplannedExits;
    QSet<QString> m_down; // processes killed on purpose, not yet back
    bool m_databaseDown = false;
    bool m_brokerDown = false;
    bool m_supervisorExitSeen = false;
    qint64 m_settledSinceMs = -1; // since when the formation is whole and synchronous
    qint64 m_settledSampleMs = -1000000;
    qint64 m_lastFailoverMs = 0;
    int m_promotions = 0;  // primaries taken away whose place the monitor gave another node
    int m_switchovers = 0; // planned switchovers that ended with another node primary
    bool m_switchoverPending = false; // one begun and not yet seen through
    int m_handoversBegun = 0;         // switchovers and manual failovers asked for
    int m_promotionsUnderLoad = 0;    // of them, seen before the clients stopped
    QElapsedTimer m_sinceStart;       // the whole run, the world's start included
    std::unique_ptr<QProcess> m_simulate;
    QString m_simulateTally;
    bool m_simulateCrashed = false;
    qint64 m_simulateStartMs = 0;
    qint64 m_simulateExchanges = 0;
    QList<std::pair<QString, QByteArray>> m_simulateViolations; // from its record alone
    qint64 m_recoveryMs = 0;
};

} // namespace keel::chaos
