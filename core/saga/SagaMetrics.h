#pragma once

#include "core/saga/StepAnswer.h"

#include <QString>

namespace keel {

// Counts what the saga engine did, in the process's metrics. Definition and
// step names come from merchants: past a fixed number of distinct names the
// rest count as "other", so /metrics cannot grow without bound.
namespace sagaMetrics {
void countFinished(const QString &definition, const QString &status);
void observeAttempt(const QString &definition, const QString &step, bool compensation,
                    const StepAnswer &answer, qint64 micros);
} // namespace sagaMetrics

} // namespace keel
