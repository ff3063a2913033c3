#include "core/recon/Matching.h"

#include "core/json/JsonWriter.h"

#include <QHash>

#include <algorithm>
#include <array>
#include <limits>
#include <unordered_map>

namespace keel {
namespace {

using Key = std::pair<int, QString>; // kind, reference

Key keyOf(LineKind kind, const QString &reference)
{
    return {int(kind), reference};
}

struct KeyHash {
    size_t operator()(const Key &key) const noexcept
    {
        return qHash(key.second, size_t(key.first));
    }
};

// The order lines of one reference are judged in, whatever order they came.
bool lineBefore(const StatementLine *a, const StatementLine *b)
{
    return std::tie(a->occurredAt, a->channelReference, a->currency, a->amount, a->fee) <
           std::tie(b->occurredAt, b->channelReference, b->currency, b->amount, b->fee);
}

ReconBreak breakOf(BreakClass kind, const StatementLine &line, qint64 channelAmount,
                   qint64 keelAmount)
{
    return {kind, line.kind, line.reference, line.currency, channelAmount, keelAmount};
}

class DayMatcher final {
public:
    explicit DayMatcher(const ReconInput &input) : m_input(input)
    {
        for (const StatementLine &line : input.lines)
            m_lines[keyOf(line.kind, line.reference)].append(&line);
        for (auto &[key, group] : m_lines)
            std::sort(group.begin(), group.end(), lineBefore);
        for (const BookedRecord &record : input.namedRecords)
            m_records[keyOf(record.kind, record.reference)] = &record;
        for (const BookedRecord &record : input.dayRecords)
            m_records[keyOf(record.kind, record.reference)] = &record;
    }

    ReconOutcome match()
    {
        for (const BookedRecord &record : m_input.dayRecords)
            judge(keyOf(record.kind, record.reference), &record);
        for (const auto &[key, group] : m_lines) {
            const auto record = m_records.find(key);
            const bool booked = record != m_records.end() && record->second->booked;
            // Money keel moved is judged on the day it moved; otherwise the
            // day of the channel's first line for it owns the difference.
            if (!booked && inDay(group.constFirst()->occurredAt))
                judge(key, record == m_records.end() ? nullptr : record->second);
        }
        std::sort(m_outcome.breaks.begin(), m_outcome.breaks.end(),
                  [](const ReconBreak &a, const ReconBreak &b) {
                      return std::tie(a.kind, a.lineKind, a.reference) <
                             std::tie(b.kind, b.lineKind, b.reference);
                  });
        return m_outcome;
    }

private:
    bool inDay(const QDateTime &at) const
    {
        return at >= m_input.day.start && at < m_input.day.end;
    }

    void judge(const Key &key, const BookedRecord *record)
    {
        const auto found = m_lines.find(key);
        if (found == m_lines.end()) {
            m_outcome.breaks.append({BreakClass::MissingAtChannel, record->kind, record->reference,
                                     record->currency, 0, record->amount});
            return;
        }
        const QList<const StatementLine *> &group = found->second;
        const qint64 keelAmount = record && record->booked ? record->amount : 0;
        if (group.size() > 1) {
            qint64 total = 0;
            for (const StatementLine *line : group)
                total = saturatingAdd(total, line->amount);
            m_outcome.breaks.append(
                breakOf(BreakClass::Duplicate, *group.constFirst(), total, keelAmount));
            return;
        }
        if (std::optional<ReconBreak> differs = compare(*group.constFirst(), record))
            m_outcome.breaks.append(*differs);
        else
            ++m_outcome.matched;
    }

    // The one comparison of a single line with the record keel has for it.
    std::optional<ReconBreak> compare(const StatementLine &line, const BookedRecord *record) const
    {
        if (!record)
            return breakOf(BreakClass::MissingAtKeel, line, line.amount, 0);
        if (!record->booked)
            return breakOf(BreakClass::StatusMismatch, line, line.amount, 0);
        if (record->currency != line.currency)
            return breakOf(BreakClass::CurrencyMismatch, line, line.amount, record->amount);
        if (record->amount != line.amount)
            return breakOf(BreakClass::AmountMismatch, line, line.amount, record->amount);
        if (m_input.feeRatePpm && line.kind == LineKind::Payment) {
            const qint64 expected = contractedFee(line.amount, *m_input.feeRatePpm);
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
    std::unordered_map<Key, QList<const StatementLine *>, KeyHash> m_lines;
    std::unordered_map<Key, const BookedRecord *, KeyHash> m_records;
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
