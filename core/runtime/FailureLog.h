#pragma once

#include "core/Result.h"

#include <QElapsedTimer>
#include <QHash>
#include <QString>

namespace keel {

// Reports what a repeating background task (a sweep, the reconciler, a fold)
// came to without flooding the log: every failure is counted in /metrics; the
// first of a run is logged, then again only after pauses that double up to
// ten minutes, naming how many failed meanwhile; the recovery is logged once.
// Only the thread that drives housekeeping uses it.
class FailureLog final {
public:
    // Returns whether this call wrote a log line.
    bool note(const QString &task, const Status &status);

    int consecutiveFailures(const QString &task) const;

private:
    struct Run {
        int failures = 0;
        int unreported = 0;
        qint64 pauseMs = 0;
        QElapsedTimer sinceReport;
    };
    QHash<QString, Run> m_runs;
};

} // namespace keel
