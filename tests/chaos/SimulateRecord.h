#pragma once

#include "ChaosRecord.h"

#include <QString>

#include <utility>

namespace keel::chaos {

// What `keel simulate --record` wrote, one exchange per line, read back as
// one Told per Idempotency-Key so that the end checks judge its merchant key
// by key, as they judge the suite's own client.
struct SimulateRecord {
    QList<Told> told;
    // Answers that already break a rule on their own: one key told two
    // different objects, a key reused for another body that made an effect.
    QList<std::pair<QString, QByteArray>> violations; // what, and the key (may be empty)
    qint64 exchanges = 0;
};

// `startedMs`: when simulate started on the run's clock, so that its
// requests line up with the faults in a history.
SimulateRecord readSimulateRecord(const QString &path, qint64 startedMs);

} // namespace keel::chaos
