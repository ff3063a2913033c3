#include "core/saga/Backoff.h"

#include "core/saga/SagaDefinition.h"

#include <QRandomGenerator>

#include <algorithm>

namespace keel {

int backoffMs(const RetryPolicy &policy, int failures)
{
    const int doublings = std::clamp(failures - 1, 0, 30);
    const qint64 grown = qint64(policy.backoffMs) << doublings;
    const qint64 capped = std::min<qint64>(grown, policy.maxBackoffMs);
    if (capped <= 1)
        return int(capped);
    const qint64 half = capped / 2;
    return int(half + QRandomGenerator::global()->bounded(capped - half + 1));
}

} // namespace keel
