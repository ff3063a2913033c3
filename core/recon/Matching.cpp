#include "core/recon/Matching.h"

#include "core/json/JsonWriter.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <limits>
#include <span>
#include <vector>

namespace keel {
namespace {

// Lines and records meet on (kind, reference). Both sides are sorted on it
// and walked together: a day is a million lines, and sorted arrays of
// pointers cost far less than a hash node per reference.
int compareKeys(LineKind kindA, const QString &a, LineKind kindB, const QString &b)
{
    if (kindA != kindB)
        return kindA < kindB ? -1 : 1;
    return a.compare(b);
}

// The order lines of one reference are judged in, whatever order they came.
bool lineBefore(const StatementLine *a, const StatementLine *b)
{
    if (const int key = compareKeys(a->kind, a->reference, b->kind, b->reference); key != 0)
        return key < 0;
    return std::tie(a->occurredAt, a->channelReference, a->currency, a->amount, a->fee,
                    a->reverses) < std::tie(b->occurredAt, b->channelReference, b->currency,
                                            b->amount, b->fee, b->reverses);
}

// A record of keel and whether its money moved in the day being matched.
struct RecordOfDay {
    const BookedRecord *record;
    bool ofDay;
};

ReconBreak breakOf(BreakClass kind, const StatementLine &line, qint64 channelAmount,
                   qint64 keelAmount)
{
    return {kind, line.kind, line.reference, line.currency, channelAmount, keelAmount};
}

using LineGroup = std::span<const StatementLine *const>;

bool recordBefore(const RecordOfDay &a, const RecordOfDay &b)
{
    return compareKeys(a.record->kind, a.record->reference, b.record->kind, b.record->reference) <
           0;
}

std::vector<RecordOfDay> sortedRecords(const QList<BookedRecord> &records, bool ofDay)
{
    std::vector<RecordOfDay> sorted;
    sorted.reserve(records.size());
    for (const BookedRecord &record : records)
        sorted.push_back({&record, ofDay});
    if (!std::is_sorted(sorted.begin(), sorted.end(), recordBefore))
        std::stable_sort(sorted.begin(), sorted.end(), recordBefore);
    return sorted;
}

class DayMatcher final {
public:
    explicit DayMatcher(const ReconInput &input) : m_input(input)
    {
        m_lines.reserve(input.lines.size());
        for (const StatementLine &line : input.lines)
            m_lines.push_back(&line);
        if (!std::is_sorted(m_lines.begin(), m_lines.end(), lineBefore))
            std::sort(m_lines.begin(), m_lines.end(), lineBefore);
        // The day's own records first within a key: they are the ones judged.
        const std::vector<RecordOfDay> ofDay = sortedRecords(input.dayRecords, true);
        const std::vector<RecordOfDay> named = sortedRecords(input.namedRecords, false);
        m_records.reserve(ofDay.size() + named.size());
        std::merge(ofDay.begin(), ofDay.end(), named.begin(), named.end(),
                   std::back_inserter(m_records), recordBefore);
    }

    ReconOutcome match()
    {
        size_t line = 0;
        size_t record = 0;
        while (line < m_lines.size() || record < m_records.size()) {
            const int order = whichFirst(line, record);
            const size_t lineEnd = order <= 0 ? endOfLines(line) : line;
            const size_t recordEnd = order >= 0 ? endOfRecords(record) : record;
            judgeKey(LineGroup(m_lines.data() + line, lineEnd - line),
                     std::span(m_records.data() + record, recordEnd - record));
            line = lineEnd;
            record = recordEnd;
        }
        std::sort(m_outcome.breaks.begin(), m_outcome.breaks.end(),
                  [](const ReconBreak &a, const ReconBreak &b) {
                      return std::tie(a.kind, a.lineKind, a.reference) <
                             std::tie(b.kind, b.lineKind, b.reference);
                  });
        return m_outcome;
    }

private:
    // < 0: the line's key comes first; > 0: the record's; 0: they share it.
    int whichFirst(size_t line, size_t record) const
    {
        if (line == m_lines.size())
            return 1;
        if (record == m_records.size())
            return -1;
        const BookedRecord &next = *m_records[record].record;
        return compareKeys(m_lines[line]->kind, m_lines[line]->reference, next.kind,
                           next.reference);
    }

    size_t endOfLines(size_t first) const
    {
        size_t end = first + 1;
        while (end < m_lines.size() &&
               compareKeys(m_lines[end]->kind, m_lines[end]->reference, m_lines[first]->kind,
                           m_lines[first]->reference) == 0)
            ++end;
        return end;
    }

    size_t endOfRecords(size_t first) const
    {
        const BookedRecord &key = *m_records[first].record;
        size_t end = first + 1;
        while (end < m_records.size() &&
               compareKeys(m_records[end].record->kind, m_records[end].record->reference, key.kind,
                           key.reference) == 0)
            ++end;
        return end;
    }

    // Every record whose money moved in the day is judged. Then the lines:
    // money keel moved is judged on the day it moved; when keel moved none,
    // the day of the channel's first line for it owns the difference. The
    // record the lines are held against is the day's last one for the key,
    // else the last one they name.
    void judgeKey(LineGroup lines, std::span<const RecordOfDay> records)
    {
        const BookedRecord *known = nullptr;
        for (const RecordOfDay &record : records)
            if (record.ofDay) {
                judge(lines, record.record);
                known = record.record;
            }
        if (!known && !records.empty())
            known = records.back().record;
        if (lines.empty())
            return;
        const bool booked = known && known->booked;
        if (!booked && inDay(lines.front()->occurredAt))
            judge(lines, known);
    }

    bool inDay(const QDateTime &at) const
    {
        return at >= m_input.day.start && at < m_input.day.end;
    }

    void judge(LineGroup group, const BookedRecord *record)
    {
        if (group.empty()) {
            // Nothing reported and nothing held: a run parked what keel had
            // booked as owed by the channel (migration 0050). Money a person
            // took back because of lines since gone is still asked after.
            if (record->amount == 0 && !record->takenBack)
                ++m_outcome.matched;
            else
                m_outcome.breaks.append({BreakClass::MissingAtChannel, record->kind,
                                         record->reference, record->currency, 0, record->amount});
            return;
        }
        const qint64 keelAmount = record ? record->amount : 0;
        const ChannelHolding holding = holdingOf(group);
        if (holding.duplicate) {
            // Reported twice, or taken back twice without being given again:
            // the channel's net is what it holds, never money in.
            m_outcome.breaks.append(
                breakOf(BreakClass::Duplicate, *holding.first, holding.net, keelAmount));
            return;
        }
        std::optional<ReconBreak> differs;
        if (holding.takebacks == 0 && holding.givebacks == 0) {
            differs = compare(*group.front(), record);
        } else if (!holding.oneCurrency) {
            differs =
                breakOf(BreakClass::CurrencyMismatch, *holding.first, holding.net, keelAmount);
        } else if (holding.givebacks > holding.takebacks) {
            // Money given again whose taking back no statement has shown:
            // a difference to chase, never money the channel is known to hold.
            differs = breakOf(BreakClass::StatusMismatch, *holding.first, holding.net, keelAmount);
        } else if (holding.givebacks == holding.takebacks && holding.payment) {
            // Taken back and given again (a dispute the merchant won): the
            // channel holds the payment, as if reported once.
            StatementLine held = *holding.payment;
            held.amount = holding.net;
            differs = compare(held, record, holding.payment->amount);
        } else {
            differs = compareReversed(holding, record);
        }
        if (differs)
            m_outcome.breaks.append(*differs);
        else
            ++m_outcome.matched;
    }

    // What the channel's lines for one reference leave it holding, whatever
    // order they came in: its one report, less what reversals took back, plus
    // what was given again (a reversal of negative amount).
    struct ChannelHolding {
        const StatementLine *first = nullptr;
        const StatementLine *payment = nullptr; // the report, if any
        qsizetype takebacks = 0;
        qsizetype givebacks = 0;
        qint64 net = 0;
        bool duplicate = false;
        bool oneCurrency = true;
    };

    static ChannelHolding holdingOf(LineGroup group)
    {
        ChannelHolding holding;
        holding.first = group.front();
        qsizetype reports = 0;
        for (const StatementLine *line : group) {
            if (line->currency != holding.first->currency)
                holding.oneCurrency = false;
            holding.net = saturatingAdd(holding.net, line->reverses ? -line->amount : line->amount);
            if (!line->reverses) {
                ++reports;
                if (!holding.payment)
                    holding.payment = line;
            } else {
                ++(line->amount > 0 ? holding.takebacks : holding.givebacks);
            }
        }
        holding.duplicate = reports > 1 || holding.takebacks > holding.givebacks + 1;
        return holding;
    }

    // A payment the channel reported and then reversed (or a reversal whose
    // payment it has not reported yet): the channel holds the difference,
    // nothing when whole, and keel must hold the same. A charge keel failed or
    // never booked holds nothing, so a whole reversal matches it. The same
    // holds for a refund the channel reported and then undid (it failed).
    std::optional<ReconBreak> compareReversed(const ChannelHolding &holding,
                                              const BookedRecord *record) const
    {
        const StatementLine &line = *holding.first;
        const qint64 net = holding.net;
        const qint64 keelAmount = record ? record->amount : 0;
        const bool whole = holding.payment && net == 0;
        if (!record)
            return whole ? std::nullopt
                         : std::optional(breakOf(BreakClass::MissingAtKeel, line, net, 0));
        if (!record->booked)
            return whole && keelAmount == 0
                       ? std::nullopt
                       : std::optional(breakOf(BreakClass::StatusMismatch, line, net, keelAmount));
        if (record->currency != line.currency)
            return breakOf(BreakClass::CurrencyMismatch, line, net, keelAmount);
        // Booked by keel, given back whole by the channel: the record's
        // status differs. A reversal is of a whole order: one of another
        // amount is a difference even where what is left is keel's.
        if (whole)
            return keelAmount == 0
                       ? std::nullopt
                       : std::optional(breakOf(BreakClass::StatusMismatch, line, net, keelAmount));
        // Unless a person already took back what the channel took (a dispute
        // partly lost), or a run parked it as owed: keel then holds what the
        // channel does by decision.
        if ((record->takenBack || record->shortfallParked) && net == keelAmount)
            return std::nullopt;
        return breakOf(BreakClass::AmountMismatch, line, net, keelAmount);
    }

    // The one comparison of a single line with the record keel has for it.
    // The channel's fee is on the amount it was first reported for
    // (`feeBase`), whatever a dispute took back and gave again since.
    std::optional<ReconBreak> compare(const StatementLine &line, const BookedRecord *record,
                                      std::optional<qint64> feeBase = std::nullopt) const
    {
        if (!record)
            return breakOf(BreakClass::MissingAtKeel, line, line.amount, 0);
        // An unbooked record holds no money of its own; what it holds is
        // money a person settled for its line before keel knew the line was
        // its (DayLoader), which must count, or it is parked again.
        if (!record->booked)
            return breakOf(BreakClass::StatusMismatch, line, line.amount, record->amount);
        if (record->currency != line.currency)
            return breakOf(BreakClass::CurrencyMismatch, line, line.amount, record->amount);
        if (record->amount != line.amount)
            return breakOf(BreakClass::AmountMismatch, line, line.amount, record->amount);
        if (m_input.feeRatePpm && line.kind == LineKind::Payment) {
            const qint64 expected =
                contractedFee(feeBase.value_or(line.amount), *m_input.feeRatePpm);
            if (line.fee != expected)
                return breakOf(BreakClass::FeeVariance, line, line.fee, expected);
        }
        return std::nullopt;
    }

    static qint64 saturatingAdd(qint64 a, qint64 b)
    {
        qint64 sum = 0;
        return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<qint64>::max() : sum;
    }

    const ReconInput &m_input;
    std::vector<const StatementLine *> m_lines;
    std::vector<RecordOfDay> m_records;
    ReconOutcome m_outcome;
};

} // namespace

QString breakClassName(BreakClass kind)
{
    static constexpr std::array<const char *, BreakClassCount> Names{
        "missing_at_keel",   "missing_at_channel", "amount_mismatch", "status_mismatch",
        "currency_mismatch", "duplicate",          "fee_variance"};
    static_assert(int(BreakClass::FeeVariance) + 1 == BreakClassCount);
    return QString::fromLatin1(Names[size_t(kind)]);
}

bool lineOrder(const StatementLine &a, const StatementLine &b)
{
    return lineBefore(&a, &b);
}

bool recordOrder(const BookedRecord &a, const BookedRecord &b)
{
    return compareKeys(a.kind, a.reference, b.kind, b.reference) < 0;
}

qint64 contractedFee(qint64 amount, qint64 feeRatePpm)
{
    // Split so that amount * rate cannot overflow: rates are at most 10^6.
    constexpr qint64 Million = 1000000;
    return (amount / Million) * feeRatePpm +
           ((amount % Million) * feeRatePpm + Million / 2) / Million;
}

ReconOutcome matchDay(const ReconInput &input)
{
    return DayMatcher(input).match();
}

QByteArray canonicalResult(const QString &channel, const QString &date, const ReconOutcome &outcome)
{
    JsonWriter json;
    json.beginObject().field(QStringLiteral("channel"), channel);
    json.field(QStringLiteral("date"), date).field(QStringLiteral("matched"), outcome.matched);
    json.key(QStringLiteral("breaks")).beginArray();
    for (const ReconBreak &found : outcome.breaks)
        writeBreakFields(json.beginObject(), found).endObject();
    json.endArray().endObject();
    return json.take();
}

JsonWriter &writeBreakFields(JsonWriter &json, const ReconBreak &found)
{
    return json.field(QStringLiteral("class"), breakClassName(found.kind))
        .field(QStringLiteral("kind"), lineKindName(found.lineKind))
        .field(QStringLiteral("reference"), found.reference)
        .field(QStringLiteral("currency"), found.currency)
        .field(QStringLiteral("channel_amount"), found.channelAmount)
        .field(QStringLiteral("keel_amount"), found.keelAmount);
}

} // namespace keel
