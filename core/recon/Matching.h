#pragma once

#include "core/statement/StatementLine.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>

namespace keel {

class JsonWriter;

// The break classes of a reconciliation, by these names everywhere.
enum class BreakClass {
    MissingAtKeel,
    MissingAtChannel,
    AmountMismatch,
    StatusMismatch,
    CurrencyMismatch,
    Duplicate,
    FeeVariance,
};
inline constexpr int BreakClassCount = 7;

QString breakClassName(BreakClass kind);

// What keel's books say about one charge or refund the channel handled.
struct BookedRecord {
    LineKind kind = LineKind::Payment;
    QString reference; // ch_... or re_...
    QString currency;
    qint64 amount = 0;  // captured or refunded, as posted; 0 when not booked
    bool booked = true; // false: keel knows the object but posted no money for it
    QDateTime at;       // when it was posted
};

struct ReconBreak {
    BreakClass kind = BreakClass::MissingAtKeel;
    LineKind lineKind = LineKind::Payment;
    QString reference;
    QString currency;
    qint64 channelAmount = 0;
    qint64 keelAmount = 0;
};

// One business day: [start, end) in the channel's zone, and the settlement lag
// after it during which a late line still counts for the day.
struct BusinessDay {
    QDateTime start;
    QDateTime end;
    QDateTime lagEnd;
};

struct ReconInput {
    BusinessDay day;
    QList<StatementLine> lines;       // the channel's lines in [start, lagEnd)
    QList<BookedRecord> dayRecords;   // keel's postings in [start, end)
    QList<BookedRecord> namedRecords; // keel's records the day's lines name, from any day
};

struct ReconOutcome {
    int matched = 0;
    QList<ReconBreak> breaks; // ordered by class, kind, reference
};

// Matches a day's statement lines with keel's records: by the reference keel
// sent, one line per charge capture and per refund. Deterministic: the same
// input in any order gives the same outcome.
ReconOutcome matchDay(const ReconInput &input);

// The canonical JSON of a run's result, whose SHA-256 identifies it.
QByteArray canonicalResult(const QString &channel, const QString &date,
                           const ReconOutcome &outcome);
// A break's fields, the same in the canonical result and in any report.
JsonWriter &writeBreakFields(JsonWriter &json, const ReconBreak &found);

} // namespace keel
