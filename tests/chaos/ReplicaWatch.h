#pragma once

#include "core/db/ConnectionSettings.h"

#include <QMutex>
#include <QSet>
#include <QString>

#include <atomic>
#include <optional>
#include <thread>
#include <vector>

namespace keel {
class LibpqConnection;
}

namespace keel::chaos {

struct Verdict;

// The console's read replica, watched while the faults run, and made to lag:
// its replay is stalled for six seconds, then left alone for fourteen. Every half
// second it commits a mark on the primary (a table of the run's own), then
// reads on the replica, as an auditor's login as the console would: how far
// behind the status bar would say it is (keel's ReplicaLag), the newest mark
// it shows, and the history browser's newest page. At the end it judges
// that the replica
// - told the truth: one that said it was current, or N s behind, showed
//   every mark the primary had committed before then (a second's grace);
// - followed each new primary, and caught up with the last mark;
// - shows no payment the primary does not have once it has caught up (a
//   payment an async replica received and the primary lost in a failover
//   may show for a moment, and is counted, but may not stay).
class ReplicaWatch final {
public:
    // `replicaName`: its application_name on the primary.
    ReplicaWatch(ConnectionSettings primary, ConnectionSettings replica, QString replicaName);
    ~ReplicaWatch();
    Q_DISABLE_COPY_MOVE(ReplicaWatch)

    // The marks table and the auditor's login; false if either could not be made.
    bool prepare(QString *error);
    void start();
    void stop();
    void judge(LibpqConnection &primary, Verdict &verdict);

private:
    struct Mark {
        qint64 id = 0;
        qint64 committedMs = 0; // wall clock once the commit returned
    };
    struct Reading {
        qint64 atMs = 0;     // wall clock before the lag was asked
        qint64 behindMs = 0; // what the console would say, as an upper bound
        qint64 newestMark = 0;
    };

    void run();
    bool stallReplay();
    void resumeWhenDue();
    void resumeReplay();
    bool markPrimary();
    bool readReplica(); // false: a server away
    bool caughtUpWithLastMark(int timeoutMs);
    void judgeWhatItSaid(Verdict &verdict) const;
    qint64 judgeWhatItShowed(LibpqConnection &primary, Verdict &verdict) const;
    void count(Verdict &verdict, qint64 withdrawn) const;

    ConnectionSettings m_primary;
    ConnectionSettings m_replica;
    QString m_replicaName;
    ConnectionSettings m_auditorOnPrimary;
    ConnectionSettings m_auditorOnReplica;
    std::atomic<bool> m_stopping{false};
    std::thread m_thread;
    QMutex m_lock;
    std::vector<Mark> m_marks;
    std::vector<Reading> m_readings;
    QSet<QString> m_chargesSeen; // on the replica's history pages
    qint64 m_failedReads = 0;
    qint64 m_readsBehind = 0; // readings that said the replica was not current
    qint64 m_maxBehindMs = 0;
    qint64 m_pauses = 0;
    qint64 m_readsBehindWhilePaused = 0;
    std::atomic<bool> m_paused{false};
    std::atomic<qint64> m_stoppedStartup{0}; // the replica's startup process, while stopped
    std::atomic<qint64> m_resumeAtMs{0};     // steady clock
    std::thread m_resumer;
    qint64 m_readsWhilePaused = 0;
    qint64 m_marksAckedByReplica = 0; // committed while it stood as a synchronous standby
};

} // namespace keel::chaos
