#pragma once

#include "core/Result.h"

#include <QHash>
#include <QList>
#include <QMutex>
#include <QString>

namespace keel {

class LibpqConnection;

struct RollupRow {
    qint64 minuteEpoch = 0; // start of the minute, seconds since the epoch (UTC)
    QString metric;
    qint64 leMicros = 0; // histogram bucket bound, 0 for plain counters
    qint64 count = 0;
    qint64 total = 0;
};

// Per-minute deltas counted by this process since the last flush. Recording
// is cheap and thread-safe; flush() adds the deltas to metrics_minute in one
// statement and, if that fails, keeps them for the next try.
class RollupBuffer final {
public:
    static RollupBuffer &instance();

    void add(const QString &metric, qint64 count = 1, qint64 total = 0, qint64 leMicros = 0);
    Status flush(LibpqConnection &session, const QString &source);
    // Deletes rows older than `days`, at most `batch` at a time.
    static Result<int> sweep(LibpqConnection &session, int days, int batch);
    // Folds ended minutes into ten-minute slots (keel.fold_metric_slots) for
    // the Overview's long ranges; safe to call from several processes.
    static Status foldSlots(LibpqConnection &session);

private:
    RollupBuffer() = default;
    struct Key {
        qint64 minute;
        QString metric;
        qint64 le;
        bool operator==(const Key &other) const
        {
            return minute == other.minute && le == other.le && metric == other.metric;
        }
    };
    friend size_t qHash(const Key &key, size_t seed)
    {
        return qHashMulti(seed, key.minute, key.metric, key.le);
    }
    struct Sums {
        qint64 count = 0;
        qint64 total = 0;
    };

    QMutex m_lock;
    QHash<Key, Sums> m_pending;
};

} // namespace keel
