#pragma once

#include "core/recon/Matching.h"

#include <QStringList>

#include <algorithm>

// Small searches a run makes over a loaded day (DayLoader, LoadedDay).
namespace keel::day_search {

inline bool inDay(const BusinessDay &day, const QDateTime &at)
{
    return at >= day.start && at < day.end;
}

inline bool listed(const QStringList &sorted, const QString &reference)
{
    return std::binary_search(sorted.cbegin(), sorted.cend(), reference);
}

// Puts `list` in order where its first `inOrder` items already are.
inline void mergeAppended(QStringList &list, qsizetype inOrder)
{
    if (!std::is_sorted(list.cbegin(), list.cbegin() + inOrder))
        inOrder = 0;
    std::sort(list.begin() + inOrder, list.end());
    std::inplace_merge(list.begin(), list.begin() + inOrder, list.end());
}

} // namespace keel::day_search
