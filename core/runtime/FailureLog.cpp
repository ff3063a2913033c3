#include "core/runtime/FailureLog.h"

#include "core/ServiceLog.h"
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
            ServiceLog::info(QStringLiteral("keel: %1 works again after %2 failed passes")
                                 .arg(task)
                                 .arg(run.failures));
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
        ServiceLog::warning(QStringLiteral("keel: %1 failed (%2): %3")
                                .arg(task, status.error().code, status.error().message));
    else
        ServiceLog::warning(
            QStringLiteral("keel: %1 still failing, %2 more times since the last report (%3): %4")
                .arg(task)
                .arg(run.unreported + 1)
                .arg(status.error().code, status.error().message));
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
