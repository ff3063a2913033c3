#include "core/recon/QuarterHours.h"

namespace keel {
namespace {

constexpr qint64 QuarterHourMs = 15 * 60 * 1000;

} // namespace

void QuarterHours::add(const QDateTime &at)
{
    const qint64 ms = at.toMSecsSinceEpoch();
    qint64 start = ms - ms % QuarterHourMs;
    if (ms % QuarterHourMs < 0)
        start -= QuarterHourMs;
    if (m_any && start == m_last)
        return;
    m_starts.insert(start);
    m_last = start;
    m_any = true;
}

QByteArray QuarterHours::arrayParam() const
{
    QByteArray array = "{";
    for (const qint64 start : m_starts) {
        if (array.size() > 1)
            array += ',';
        array += QByteArray::number(start);
    }
    return array + '}';
}

} // namespace keel
