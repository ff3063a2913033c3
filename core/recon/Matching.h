#pragma once

#include "core/statement/StatementLine.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>

#include <optional>

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

// What keel's books say about one charge or refund the channel handled: the
// net of its movements on the channel's clearing account.
struct BookedRecord {
    LineKind kind = LineKind::Payment;
    QString reference; // ch_... or re_...
    QString currency;
    qint64 amount = 0;  // what reached (payment) or left (refund) clearing for it
    bool booked = true; // false: keel knows the object but moved no money for it
    QDateTime at;       // when its money first moved
    // The channel's own id for it, as keel kept it; empty when not kept or
    // not loaded. Only the loading of a day reads it.
    QString channelReference;
    // A person took back part of a charge's money because the channel did
    // (recon_break.take_back): what keel holds then answers a reversal.
    bool takenBack = false;
    // A run parked keel's shortfall on the charge as owed by the channel
    // (migration 0050): what keel holds then answers a reversal too.
    bool shortfallParked = false;
};

struct ReconBreak {
    BreakClass kind = BreakClass::MissingAtKeel;
    LineKind lineKind = LineKind::Payment;
    QString reference;
    QString currency;
    qint64 channelAmount = 0;
    qint64 keelAmount = 0;
};

// One business day: [start, end) in the channel's zone, and the end of the
// settlement lag after it, until which a record the channel has not reported
// is only pending.
struct BusinessDay {
    QDateTime start;
    QDateTime end;
    QDateTime lagEnd;
};

struct ReconInput {
    BusinessDay day;
    // Every line of the channel, whatever its day, for each reference that a
    // line of the day or a record of the day names.
    QList<StatementLine> lines;
    QList<BookedRecord> dayRecords;   // keel's records whose money first moved in the day
    QList<BookedRecord> namedRecords; // keel's records the lines name, from any day
    std::optional<qint64> feeRatePpm; // the contracted fee, millionths of the amount
};

struct ReconOutcome {
    int matched = 0;
    QList<ReconBreak> breaks; // ordered by class, kind, reference
};

// The order matchDay judges in: by kind, then reference; a reference's lines
// by time, then their other fields. Input already in this order is not sorted
// again, which is most of the work at a million lines.
bool lineOrder(const StatementLine &a, const StatementLine &b);
bool recordOrder(const BookedRecord &a, const BookedRecord &b);

// Matches one day. Each charge capture and each refund belongs to exactly one
// business day, so that a difference is reported once: the day keel moved its
// money, or, when keel moved none, the day of the channel's first line for it.
// Deterministic: the same input in any order gives the same outcome.
ReconOutcome matchDay(const ReconInput &input);

// The fee the contract asks for `amount`, rounded half up.
qint64 contractedFee(qint64 amount, qint64 feeRatePpm);

// The canonical JSON of a run's result, whose SHA-256 identifies it.
QByteArray canonicalResult(const QString &channel, const QString &date,
                           const ReconOutcome &outcome);
// A break's fields, the same in the canonical result and in any report.
JsonWriter &writeBreakFields(JsonWriter &json, const ReconBreak &found);

} // namespace keel

Q_DECLARE_TYPEINFO(keel::BookedRecord, Q_RELOCATABLE_TYPE);
