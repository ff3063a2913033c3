#include "core/runtime/FailureLog.h"

#include "core/metrics/Metrics.h"

#include <algorithm>

namespace keel {
namespace {

constexpr qint64 FirstPauseMs = 10'000;
constexpr qint64 LongestPauseMs = 600'000;

} // namespace

bool FailureLog::note(const QString &task, const Status &status)
{
    Run &run = m_runs[task];
    if (status.ok()) {
        const bool recovered = run.failures > 0;
        if (recovered)
            qInfo("keel: %s works again after %d failed passes", qPrintable(task), run.failures);
        run = Run{};
        return recovered;
    }
    Metrics::instance().countHousekeepingFailure(task);
    ++run.failures;
    if (run.failures > 1 && run.sinceReport.elapsed() < run.pauseMs) {
        ++run.unreported;
        return false;
    }
    if (run.failures == 1)
        qWarning("keel: %s failed (%s): %s", qPrintable(task), qPrintable(status.error().code),
                 qPrintable(status.error().message));
    else
        qWarning("keel: %s still failing, %d more times since the last report (%s): %s",
                 qPrintable(task), run.unreported + 1, qPrintable(status.error().code),
                 qPrintable(status.error().message));
    run.unreported = 0;
    run.pauseMs = run.failures == 1 ? FirstPauseMs : std::min(run.pauseMs * 2, LongestPauseMs);
    run.sinceReport.start();
    return true;
}

int FailureLog::consecutiveFailures(const QString &task) const
{
    return m_runs.value(task).failures;
}

} // namespace keel
