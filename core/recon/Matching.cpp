#include "core/recon/Matching.h"

#include "core/json/JsonWriter.h"

#include <QHash>

#include <algorithm>
#include <array>
#include <unordered_map>

namespace keel {
namespace {

using Key = std::pair<int, QString>; // kind, reference

Key keyOf(LineKind kind, const QString &reference)
{
    return {int(kind), reference};
}

QString lineReference(const StatementLine &line)
{
    return line.reference.isEmpty() ? line.channelReference : line.reference;
}

struct KeyHash {
    size_t operator()(const Key &key) const noexcept
    {
        return qHash(key.second, size_t(key.first));
    }
};

ReconBreak breakOf(BreakClass kind, LineKind lineKind, const QString &reference,
                   const QString &currency, qint64 channelAmount, qint64 keelAmount)
{
    return {kind, lineKind, reference, currency, channelAmount, keelAmount};
}

// The one comparison of a single line with the record keel has for it.
std::optional<ReconBreak> compare(const StatementLine &line, const BookedRecord *record)
{
    const QString reference = lineReference(line);
    if (!record)
        return breakOf(BreakClass::MissingAtKeel, line.kind, reference, line.currency, line.amount,
                       0);
    if (!record->booked)
        return breakOf(BreakClass::StatusMismatch, line.kind, reference, line.currency, line.amount,
                       0);
    if (record->currency != line.currency)
        return breakOf(BreakClass::CurrencyMismatch, line.kind, reference, line.currency,
                       line.amount, record->amount);
    if (record->amount != line.amount)
        return breakOf(BreakClass::AmountMismatch, line.kind, reference, line.currency, line.amount,
                       record->amount);
    return std::nullopt;
}

} // namespace

QString breakClassName(BreakClass kind)
{
    static constexpr std::array<const char *, BreakClassCount> Names{
        "missing_at_keel",   "missing_at_channel", "amount_mismatch", "status_mismatch",
        "currency_mismatch", "duplicate",          "fee_variance"};
    static_assert(int(BreakClass::FeeVariance) + 1 == BreakClassCount);
    return QString::fromLatin1(Names[size_t(kind)]);
}

ReconOutcome matchDay(const ReconInput &input)
{
    struct Group {
        QList<const StatementLine *> lines;
        bool inDay = false; // one of its lines is in the day, not only in the lag after it
    };
    std::unordered_map<Key, Group, KeyHash> lines;
    QList<Key> dayKeys;
    for (const StatementLine &line : input.lines) {
        const Key key = keyOf(line.kind, lineReference(line));
        Group &group = lines[key];
        if (line.occurredAt < input.day.end && !group.inDay) {
            group.inDay = true;
            dayKeys.append(key);
        }
        group.lines.append(&line);
    }
    std::unordered_map<Key, const BookedRecord *, KeyHash> records;
    for (const QList<BookedRecord> *source : {&input.namedRecords, &input.dayRecords})
        for (const BookedRecord &record : *source)
            records[keyOf(record.kind, record.reference)] = &record;

    ReconOutcome outcome;
    const auto judge = [&](const QList<const StatementLine *> &group, const BookedRecord *record) {
        if (group.size() > 1) {
            qint64 total = 0;
            for (const StatementLine *line : group)
                total += line->amount;
            const StatementLine &first = *group.constFirst();
            outcome.breaks.append(breakOf(BreakClass::Duplicate, first.kind, lineReference(first),
                                          first.currency, total,
                                          record && record->booked ? record->amount : 0));
        } else if (std::optional<ReconBreak> found = compare(*group.constFirst(), record)) {
            outcome.breaks.append(*found);
        } else {
            ++outcome.matched;
        }
    };
    for (const Key &key : std::as_const(dayKeys)) {
        const auto record = records.find(key);
        judge(lines[key].lines, record == records.end() ? nullptr : record->second);
    }
    for (const BookedRecord &record : input.dayRecords) {
        const Key key = keyOf(record.kind, record.reference);
        const auto group = lines.find(key);
        if (group == lines.end())
            outcome.breaks.append(breakOf(BreakClass::MissingAtChannel, record.kind,
                                          record.reference, record.currency, 0, record.amount));
        else if (!group->second.inDay) // it came late, within the settlement lag
            judge(group->second.lines, &record);
    }
    std::sort(outcome.breaks.begin(), outcome.breaks.end(),
              [](const ReconBreak &a, const ReconBreak &b) {
                  return std::tie(a.kind, a.lineKind, a.reference) <
                         std::tie(b.kind, b.lineKind, b.reference);
              });
    return outcome;
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
