#include "core/recon/BusinessDays.h"

#include <iterator>

namespace keel {

void BusinessDays::add(const QDateTime &at)
{
    if (!m_zone.isValid())
        return;
    const qint64 ms = at.toMSecsSinceEpoch();
    if (m_last && ms >= m_lastStart && ms < m_last->endMs)
        return;
    auto after = m_byStart.upper_bound(ms);
    if (after != m_byStart.begin()) {
        const auto on = std::prev(after);
        if (ms < on->second.endMs) {
            m_lastStart = on->first;
            m_last = &on->second;
            return;
        }
    }
    const QDate date = at.toTimeZone(m_zone).date();
    const qint64 start = date.startOfDay(m_zone).toMSecsSinceEpoch();
    const auto added = m_byStart.insert_or_assign(
        start, Day{date.addDays(1).startOfDay(m_zone).toMSecsSinceEpoch(), date});
    m_lastStart = start;
    m_last = &added.first->second;
}

QStringList BusinessDays::days() const
{
    QStringList days;
    for (const auto &[start, day] : m_byStart)
        days << day.date.toString(Qt::ISODate);
    return days;
}

} // namespace keel
