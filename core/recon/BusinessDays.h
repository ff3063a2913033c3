#pragma once

#include <QDate>
#include <QDateTime>
#include <QStringList>
#include <QTimeZone>

#include <map>

namespace keel {

// The business days in a channel's zone that a run of times falls on,
// found without converting each time: a time inside a day already seen is
// on that day, and only the first time of each day is converted.
class BusinessDays final {
public:
    explicit BusinessDays(QTimeZone zone) : m_zone(std::move(zone)) {}

    // Whether Qt knows the zone; the days are then right.
    bool valid() const { return m_zone.isValid(); }
    void add(const QDateTime &at);
    // The days seen, as ISO dates, in order.
    QStringList days() const;

private:
    struct Day {
        qint64 endMs = 0;
        QDate date;
    };

    QTimeZone m_zone;
    std::map<qint64, Day> m_byStart; // a day's first millisecond since the epoch, UTC
    const Day *m_last = nullptr;
    qint64 m_lastStart = 0;
};

} // namespace keel
