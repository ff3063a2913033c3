#pragma once

#include "core/Result.h"
#include "core/recon/Matching.h"

#include <QDate>
#include <QTimeZone>

#include <array>

namespace keel {

class LibpqConnection;

// One channel's business day as a run judges it: keel's records whose money
// moved that day, every line of the channel that the day's lines or records
// name (by keel's reference, then by the channel's own id), and the records
// those lines name from other days. Read in the caller's snapshot.
struct LoadedDay {
    ReconInput input;
    QTimeZone zone;
    // The references, by kind, that the lines found here under the channel's
    // id are stored under. Another day may still hold a break for such a
    // line from before keel knew the id (or knew the line's record), and
    // runs again to drop it.
    std::array<QStringList, 2> renamedFrom;

    // The other business days whose money a line of this day belongs to: a
    // late line, or the channel's second report of a payment, is judged on
    // the day keel moved the money, or where keel moved none, on the day of
    // the channel's first line for it; that day must run again to see it.
    QList<QDate> ownersElsewhere() const;
    // How many of the channel's lines fell on the day itself.
    qsizetype dayLineCount() const;
};

// `session` must be in a REPEATABLE READ transaction: the day is read in
// several statements that leave out what an earlier one brought. With
// `asOfRun`, the lines, postings and channel rules are those that run read
// (readAsOf).
Result<LoadedDay> loadReconDay(LibpqConnection &session, const QString &channel, const QDate &date,
                               qint64 asOfRun = 0);

} // namespace keel
