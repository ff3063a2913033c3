#pragma once

#include <QList>
#include <QString>

namespace keel::chaos {

// One fault: what, when (ms after the load starts) and for how long.
struct Fault {
    enum class Kind {
        KillProcess,        // kill -9 of `target`, restarted after `durationMs`
        RestartDatabase,    // PostgreSQL immediate shutdown, started after `durationMs`
        FailOver,           // the primary's node shut down cleanly (HA runs only): the
                            // monitor promotes the secondary, the node restarts after
        CrashPrimary,       // the primary's keeper and PostgreSQL SIGKILLed (HA runs only);
                            // the monitor notices and fails over, the node restarts after
        Switchover,         // an operator's planned switchover (Patroni runs only): the
                            // primary hands over to the standby and follows it
        RestartBroker,      // RabbitMQ (a cluster's node `target`) stopped, started after
                            // `durationMs`
        CrashBroker,        // a cluster's node `target` SIGKILLed, started after `durationMs`
        ParticipantFails,   // `target` answers 503 to its next `count` calls
        ParticipantHangs,   // `target` answers after 3 s (beyond the step timeout) `count` times
        ParticipantRefuses, // `target` answers 409 (business failure) `count` times
        ParticipantRepeats, // `target` sends each of its next `count` answers twice
    };
    Kind kind = Kind::KillProcess;
    qint64 atMs = 0;
    int durationMs = 0;
    QString target;
    int count = 0;

    QString describe() const;
    QString kindName() const;
};

// A cluster's broker faults are at least this far apart (ms).
inline constexpr qint64 brokerFaultsApart = 20000;

// The faults of a run, all derived from its seed: the same seed and length
// give the same plan, so a run can be replayed. With `failover` the database
// faults are failovers of the primary, at least one. With `brokerNodes` > 1
// each broker fault stops or kills one node of the cluster, at least one of each,
// the first two in time a stop and then a crash.
// With `switchovers` half the clean shutdowns of a failover run are planned
// switchovers instead, and a plan with none gets one added.
QList<Fault> planFaults(quint64 seed, int seconds, const QStringList &processes, bool failover,
                        int brokerNodes = 1, bool switchovers = false);

} // namespace keel::chaos
