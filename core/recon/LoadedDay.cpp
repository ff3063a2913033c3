#include "core/recon/DayLoader.h"
#include "core/recon/DaySearch.h"

#include <algorithm>
#include <array>

namespace keel {

using namespace day_search;

QList<QDate> LoadedDay::ownersElsewhere() const
{
    // Money keel moved is judged on the day it moved.
    QList<const BookedRecord *> elsewhere;
    std::array<QStringList, 2> booked;
    std::array<qsizetype, 2> ofTheDay{};
    for (const QList<BookedRecord> *records : {&input.dayRecords, &input.namedRecords}) {
        for (const BookedRecord &record : *records)
            if (record.booked) {
                booked[size_t(record.kind)] << record.reference;
                if (!inDay(input.day, record.at))
                    elsewhere.append(&record);
            }
        if (records == &input.dayRecords)
            ofTheDay = {booked[0].size(), booked[1].size()};
    }
    // The day's records are in recordOrder already: only the few named ones
    // are sorted and merged in.
    for (size_t kind : {0, 1})
        mergeAppended(booked[kind], ofTheDay[kind]);
    QStringList named[2];
    QList<QDate> days;
    // Where keel moved none, the day of the channel's first line for it owns
    // it: a later line (a reversal, a second report) sends that day to run again.
    for (qsizetype first = 0; first < input.lines.size();) {
        const StatementLine &head = input.lines.at(first);
        qsizetype end = first + 1;
        bool lineOfDay = inDay(input.day, head.occurredAt);
        for (; end < input.lines.size() && input.lines.at(end).kind == head.kind &&
               input.lines.at(end).reference == head.reference;
             ++end)
            lineOfDay = lineOfDay || inDay(input.day, input.lines.at(end).occurredAt);
        if (lineOfDay) {
            named[int(head.kind)].append(head.reference);
            if (!inDay(input.day, head.occurredAt) &&
                !listed(booked[size_t(head.kind)], head.reference))
                days.append(head.occurredAt.toTimeZone(zone).date());
        }
        first = end;
    }
    // The lines are in lineOrder, so their references already are.
    for (QStringList &references : named)
        if (!std::is_sorted(references.cbegin(), references.cend()))
            std::sort(references.begin(), references.end());
    for (const BookedRecord *record : std::as_const(elsewhere)) {
        const QStringList &references = named[int(record->kind)];
        if (std::binary_search(references.cbegin(), references.cend(), record->reference))
            days.append(record->at.toTimeZone(zone).date());
    }
    std::sort(days.begin(), days.end());
    days.erase(std::unique(days.begin(), days.end()), days.end());
    return days;
}

qsizetype LoadedDay::dayLineCount() const
{
    return std::count_if(
        input.lines.cbegin(), input.lines.cend(),
        [this](const StatementLine &line) { return inDay(input.day, line.occurredAt); });
}

} // namespace keel
