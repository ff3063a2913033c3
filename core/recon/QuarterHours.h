#pragma once

#include <QByteArray>
#include <QDateTime>

#include <set>

namespace keel {

// The quarter hours (UTC) a run of times falls in. Every zone in use is offset
// from UTC by whole quarter hours, so no day of any zone begins inside one:
// the days of the quarter hours, as the database cuts them in the channel's
// zone, are the days of the times, found in one small statement instead of
// a pass over every stored line.
class QuarterHours final {
public:
    void add(const QDateTime &at);
    // The quarter hours' first milliseconds since the epoch, as a bigint[]
    // parameter.
    QByteArray arrayParam() const;
    qsizetype size() const { return qsizetype(m_starts.size()); }

private:
    std::set<qint64> m_starts;
    qint64 m_last = 0;
    bool m_any = false;
};

} // namespace keel
