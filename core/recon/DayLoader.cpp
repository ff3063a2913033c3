#include "core/recon/DayLoader.h"

#include "core/db/LibpqConnection.h"
#include "core/db/PgCursor.h"
#include "core/recon/DayQueries.h"
#include "core/recon/DaySearch.h"
#include "core/recon/ReadAsOf.h"

#include <QHash>

#include <algorithm>
#include <array>
#include <iterator>
#include <optional>
#include <thread>

namespace keel {
namespace {

using namespace day_queries;
using namespace day_search;

// The day's two large reads come a batch at a time (readInBatches): a few
// megabytes of libpq's result at once rather than two hundred. A cursor is
// never read by parallel workers; the day's records were kept to one server
// process already (loadDayRecords), and the day's lines, read beside them on
// the twin, take the other core of a small server.
constexpr int BatchRows = 50000;

QDateTime utcMillis(qint64 millis)
{
    return QDateTime::fromMSecsSinceEpoch(millis, Qt::UTC);
}

LineKind kindNamed(QByteArrayView name)
{
    return name == "refund" ? LineKind::Refund : LineKind::Payment;
}

// A column whose value mostly repeats (a currency): one string for each run
// of the same bytes instead of one allocation per row.
class RepeatedText final {
public:
    const QString &operator()(QByteArrayView bytes)
    {
        if (!m_seen || bytes != m_bytes) {
            m_bytes = bytes.toByteArray();
            m_text = QString::fromUtf8(bytes);
            m_seen = true;
        }
        return m_text;
    }

private:
    bool m_seen = false;
    QByteArray m_bytes;
    QString m_text;
};

class DayLoader final {
public:
    DayLoader(LibpqConnection &session, const QString &channel, qint64 asOfRun)
        : m_session(session), m_channel(channel.toUtf8()), m_asOfRun(asOfRun)
    {}

    Result<LoadedDay> load(const QDate &date);

private:
    Status loadRecordsAndLines(LoadedDay &day);
    Result<std::optional<LibpqConnection>> snapshotTwin();
    Status loadDayRecords(LoadedDay &day);
    Status loadLinesUnseen(LoadedDay &day);
    Status loadNamedRecords(LoadedDay &day);
    Status matchChannelReferences(LoadedDay &day);
    Status countSettledUnderChannelIds(LoadedDay &day);
    Status appendLinesOf(LoadedDay &day, const QStringList &references);
    Status appendNamedRecords(const QStringList &charges, const QStringList &refunds,
                              QList<BookedRecord> &records);
    // A day query as this load reads it: now, or as a run read it.
    QByteArray sql(const char *query) const
    {
        return m_asOfRun == 0 ? QByteArray(query) : readAsOf(query, m_asOfRun);
    }
    QByteArray millis(const QDateTime &at) const
    {
        return QByteArray::number(at.toMSecsSinceEpoch());
    }

    LibpqConnection &m_session;
    QByteArray m_channel;
    qint64 m_asOfRun; // a run whose reads to repeat, or 0
    // References of the loaded lines that no record of keel's has, by kind,
    // sorted.
    std::array<QStringList, 2> m_unnamed;
    // The references whose lines of every day loadLinesUnseen read, sorted.
    QStringList m_asked;
};

Result<LoadedDay> DayLoader::load(const QDate &date)
{
    Result<PgRows> day =
        m_session.query(sql(DayOfChannel), {m_channel, date.toString(Qt::ISODate).toLatin1()});
    if (!day)
        return day.error();
    if (day->size() == 0)
        return fieldError(QStringLiteral("channel"), QStringLiteral("unknown_channel"),
                          QStringLiteral("keel knows no channel \"%1\" (recon_channels)")
                              .arg(QString::fromUtf8(m_channel).left(40)));
    LoadedDay loaded;
    loaded.input.day = {utcMillis(day->toInt64(0, 0)), utcMillis(day->toInt64(0, 1)),
                        utcMillis(day->toInt64(0, 2))};
    loaded.zone = QTimeZone(day->value(0, 4));
    if (!day->isNull(0, 3))
        loaded.input.feeRatePpm = day->toInt64(0, 3);
    for (Status (DayLoader::*step)(LoadedDay &) :
         {&DayLoader::loadRecordsAndLines, &DayLoader::loadLinesUnseen,
          &DayLoader::loadNamedRecords, &DayLoader::matchChannelReferences,
          &DayLoader::countSettledUnderChannelIds})
        if (Status done = (this->*step)(loaded); !done)
            return done.error();
    return loaded;
}

Status DayLoader::loadDayRecords(LoadedDay &day)
{
    Result<QString> clearing = m_session.scalar(sql(ClearingAccounts));
    if (!clearing)
        return clearing.error();
    // Split by the planner, the aggregation sorted on disk in each worker and
    // read the day's arrivals once per worker: on a 2-core server, at a
    // million charges, 4.3-6.0 s against 3.4-3.6 s in one process even with
    // nothing else running. More cores may take less time split, but do that
    // work over again; a daily batch sharing the gateway's database keeps to
    // one process.
    if (Status serial = m_session.exec("SET LOCAL max_parallel_workers_per_gather = 0"); !serial)
        return serial;
    RepeatedText currency;
    QList<BookedRecord> &records = day.input.dayRecords;
    Status read = readInBatches(
        m_session, "day_records", sql(DayRecords),
        {m_channel, millis(day.input.day.start), millis(day.input.day.end), clearing->toLatin1()},
        BatchRows, [&](const PgRows &rows) {
            for (int i = 0; i < rows.size(); ++i)
                records.append({kindNamed(rows.view(i, 0)), rows.text(i, 1),
                                currency(rows.view(i, 2)), rows.toInt64(i, 3), true,
                                utcMillis(rows.toInt64(i, 4)), rows.text(i, 5),
                                rows.view(i, 6) == "t", rows.view(i, 7) == "t"});
            return Status{};
        });
    if (!read)
        return read;
    std::sort(records.begin(), records.end(), recordOrder);
    return {};
}

// Appends the rows as lines, in the order they came. No reserve here: batch
// after batch, reserving each one's rows exactly would move the whole list.
void appendRows(const PgRows &rows, QList<StatementLine> &lines, RepeatedText &currency)
{
    for (int i = 0; i < rows.size(); ++i) {
        QString reference = rows.text(i, 1);
        // A line named by the channel's id alone carries it twice: one string.
        QString channelReference = rows.view(i, 2) == rows.view(i, 1) ? reference : rows.text(i, 2);
        lines.append({kindNamed(rows.view(i, 0)), std::move(reference), std::move(channelReference),
                      rows.toInt64(i, 3), currency(rows.view(i, 4)), rows.toInt64(i, 5),
                      utcMillis(rows.toInt64(i, 6)), rows.view(i, 7) == "t"});
    }
}

// Puts the lines from `appended` on in matchDay's order among those before.
void keepInOrder(QList<StatementLine> &lines, qsizetype appended)
{
    std::sort(lines.begin() + appended, lines.end(), lineOrder);
    std::inplace_merge(lines.begin(), lines.begin() + appended, lines.end(), lineOrder);
}

// Appends the rows as lines and keeps all of them in matchDay's order.
void appendLines(const PgRows &rows, QList<StatementLine> &lines)
{
    const qsizetype before = lines.size();
    lines.reserve(before + rows.size());
    RepeatedText currency;
    appendRows(rows, lines, currency);
    keepInOrder(lines, before);
}

bool referenceBefore(const StatementLine &line, const QString &reference)
{
    return line.reference < reference;
}

// Whether a line of the record's, from `at` on, carries the channel's id
// keel kept for it. The lines of one reference are together.
bool carriesKeptId(const BookedRecord &record, QList<StatementLine>::const_iterator at,
                   QList<StatementLine>::const_iterator end)
{
    for (; at != end && at->reference == record.reference; ++at)
        if (at->channelReference == record.channelReference)
            return true;
    return false;
}

// The day's records whose lines the loaded ones may not all be, in order:
// those no line names, whatever its kind, and those whose lines all carry
// another id than the one the channel answered keel with (the channel may
// have reported the record a second time under that id alone). Both sides
// are sorted, so one walk per kind finds them.
QStringList recordsWithLinesUnseen(const QList<BookedRecord> &records,
                                   const QList<StatementLine> &lines)
{
    const auto refunds = std::partition_point(lines.cbegin(), lines.cend(), [](const auto &line) {
        return line.kind == LineKind::Payment;
    });
    const std::pair<QList<StatementLine>::const_iterator, QList<StatementLine>::const_iterator>
        ofKind[2] = {{lines.cbegin(), refunds}, {refunds, lines.cend()}};
    const auto names = [](QList<StatementLine>::const_iterator at,
                          QList<StatementLine>::const_iterator end, const QString &reference) {
        return at != end && at->reference == reference;
    };
    // Records of one kind come in order, so their lines are found walking on.
    QList<StatementLine>::const_iterator cursor[2] = {ofKind[0].first, ofKind[1].first};
    QStringList unseen;
    for (const BookedRecord &record : records) {
        const auto &[from, end] = ofKind[int(record.kind)];
        auto &at = cursor[int(record.kind)];
        at = std::lower_bound(at, end, record.reference, referenceBefore);
        if (names(at, end, record.reference)) {
            if (!record.channelReference.isEmpty() && !carriesKeptId(record, at, end))
                unseen << record.reference;
            continue;
        }
        // A line of the other kind under the same reference names it too.
        const auto &[otherFrom, otherEnd] = ofKind[1 - int(record.kind)];
        if (!names(std::lower_bound(otherFrom, otherEnd, record.reference, referenceBefore),
                   otherEnd, record.reference))
            unseen << record.reference;
    }
    unseen.removeDuplicates();
    return unseen;
}

// The kind and reference of each line that no record of the day has, each
// once: the records keel must look up by name. Both sides are sorted.
std::array<QStringList, 2> linesWithoutRecords(const QList<StatementLine> &lines,
                                               const QList<BookedRecord> &records)
{
    std::array<QStringList, 2> wanted;
    auto record = records.cbegin();
    for (auto line = lines.cbegin(); line != lines.cend(); ++line) {
        if (line != lines.cbegin() && line->kind == std::prev(line)->kind &&
            line->reference == std::prev(line)->reference)
            continue;
        while (record != records.cend() &&
               std::tie(record->kind, record->reference) < std::tie(line->kind, line->reference))
            ++record;
        if (record == records.cend() || record->kind != line->kind ||
            record->reference != line->reference)
            wanted[size_t(line->kind)] << line->reference;
    }
    return wanted;
}

// The day's lines, and the channel's lines of other days for the references
// they name, so that a reference is judged on all of its lines whatever
// their day.
Result<QList<StatementLine>> readDayLines(LibpqConnection &session, const QByteArray &query,
                                          const QByteArrayList &window)
{
    QList<StatementLine> lines;
    RepeatedText currency;
    Status read =
        readInBatches(session, "day_lines", query, window, BatchRows, [&](const PgRows &rows) {
            appendRows(rows, lines, currency);
            return Status{};
        });
    if (!read)
        return read.error();
    std::sort(lines.begin(), lines.end(), lineOrder);
    return lines;
}

// A snapshot's name as the server gives it: hex groups and dashes, so that
// it can be written into SET TRANSACTION SNAPSHOT as it is.
bool plainSnapshotName(const QString &name)
{
    return !name.isEmpty() && std::all_of(name.cbegin(), name.cend(), [](QChar c) {
        return (c >= u'0' && c <= u'9') || (c >= u'A' && c <= u'F') || c == u'-';
    });
}

// A second session reading in this transaction's snapshot, or none: when
// the server takes no more sessions or the twin cannot share the snapshot,
// the day is read on this session alone, which fails itself if the server
// is really gone.
Result<std::optional<LibpqConnection>> DayLoader::snapshotTwin()
{
    Result<QString> snapshot = m_session.scalar("SELECT pg_export_snapshot()");
    if (!snapshot)
        return snapshot.error();
    if (!plainSnapshotName(*snapshot))
        return makeError(ErrorKind::Failed,
                         QStringLiteral("the server named its snapshot \"%1\"").arg(*snapshot));
    Result<LibpqConnection> twin = m_session.openTwin();
    if (!twin)
        return std::optional<LibpqConnection>();
    if (!twin->exec("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY") ||
        !twin->exec("SET TRANSACTION SNAPSHOT '" + snapshot->toLatin1() + "'"))
        return std::optional<LibpqConnection>();
    return std::optional<LibpqConnection>(std::move(twin).value());
}

// The day's postings and the day's lines are the run's two largest reads,
// each a server process's work: they run at once, the lines on a twin
// session that sees exactly what this one sees.
Status DayLoader::loadRecordsAndLines(LoadedDay &day)
{
    const QByteArrayList window{m_channel, millis(day.input.day.start), millis(day.input.day.end)};
    Result<std::optional<LibpqConnection>> twin = snapshotTwin();
    if (!twin)
        return twin.error();
    Result<QList<StatementLine>> lines = QList<StatementLine>();
    Status records;
    if (twin->has_value()) {
        LibpqConnection &reader = **twin;
        // Joined as this block ends, whatever loadDayRecords does.
        const std::jthread linesReader([&] {
            lines = readDayLines(reader, sql(LinesOfDay), window);
            (void)reader.exec("COMMIT");
        });
        records = loadDayRecords(day);
    } else {
        records = loadDayRecords(day);
        if (records)
            lines = readDayLines(m_session, sql(LinesOfDay), window);
    }
    if (!records)
        return records;
    if (!lines)
        return lines.error();
    day.input.lines = std::move(lines).value();
    return {};
}

// A record may still have lines of other days: under its reference when the
// day's lines do not name it, under the channel's id for it when none of its
// lines carries that id.
Status DayLoader::loadLinesUnseen(LoadedDay &day)
{
    m_asked = recordsWithLinesUnseen(day.input.dayRecords, day.input.lines);
    std::sort(m_asked.begin(), m_asked.end());
    if (m_asked.isEmpty())
        return {};
    return appendLinesOf(day, m_asked);
}

bool sameLine(const StatementLine &a, const StatementLine &b)
{
    return a.kind == b.kind && a.reference == b.reference &&
           a.channelReference == b.channelReference && a.amount == b.amount &&
           a.currency == b.currency && a.fee == b.fee && a.occurredAt == b.occurredAt &&
           a.reverses == b.reverses;
}

// The records' lines of any day that the day's read did not bring, each
// line once: a line may be found both under keel's reference and under the
// channel's id, and a stored line is unique in its kind, channel id and
// direction, so equal lines are one.
Status DayLoader::appendLinesOf(LoadedDay &day, const QStringList &references)
{
    Result<PgRows> rows = m_session.query(sql(LinesOfReferences),
                                          {m_channel, LibpqConnection::arrayParam(references),
                                           millis(day.input.day.start), millis(day.input.day.end)});
    if (!rows)
        return rows.error();
    QList<StatementLine> &lines = day.input.lines;
    appendLines(*rows, lines);
    lines.erase(std::unique(lines.begin(), lines.end(), sameLine), lines.end());
    return {};
}

// The references of the records, by kind, sorted for binary search.
std::array<QStringList, 2> referencesByKind(const QList<BookedRecord> &records)
{
    std::array<QStringList, 2> references;
    for (const BookedRecord &record : records)
        references[size_t(record.kind)] << record.reference;
    for (QStringList &ofKind : references)
        std::sort(ofKind.begin(), ofKind.end());
    return references;
}

Status DayLoader::loadNamedRecords(LoadedDay &day)
{
    // The day's own records are known already; most lines name one of them.
    const auto [charges, refunds] = linesWithoutRecords(day.input.lines, day.input.dayRecords);
    if (charges.isEmpty() && refunds.isEmpty())
        return {};
    const qsizetype before = day.input.namedRecords.size();
    if (Status named = appendNamedRecords(charges, refunds, day.input.namedRecords); !named)
        return named;
    // What neither the day's records nor these name, for the channel's ids.
    const std::array<QStringList, 2> known = referencesByKind(day.input.namedRecords.mid(before));
    m_unnamed = {charges, refunds};
    for (size_t kind : {0, 1})
        m_unnamed[kind].removeIf(
            [&](const QString &reference) { return listed(known[kind], reference); });
    return {};
}

Status DayLoader::appendNamedRecords(const QStringList &charges, const QStringList &refunds,
                                     QList<BookedRecord> &records)
{
    Result<PgRows> rows =
        m_session.query(sql(NamedRecords), {m_channel, LibpqConnection::arrayParam(charges),
                                            LibpqConnection::arrayParam(refunds)});
    if (!rows)
        return rows.error();
    for (int i = 0; i < rows->size(); ++i)
        records.append({kindNamed(rows->view(i, 0)),
                        rows->text(i, 1),
                        rows->text(i, 2),
                        rows->toInt64(i, 3),
                        rows->value(i, 4) == "t",
                        utcMillis(rows->toInt64(i, 5)),
                        {},
                        rows->view(i, 6) == "t",
                        rows->view(i, 7) == "t"});
    return {};
}

// The day's record of this kind and reference, or none. The day's records
// are in recordOrder.
const BookedRecord *dayRecord(const ReconInput &input, LineKind kind, const QString &reference)
{
    BookedRecord key;
    key.kind = kind;
    key.reference = reference;
    const auto at =
        std::lower_bound(input.dayRecords.cbegin(), input.dayRecords.cend(), key, recordOrder);
    return at != input.dayRecords.cend() && at->kind == kind && at->reference == reference
               ? &*at
               : nullptr;
}

// The copy of `text` a sorted list holds, or `text` where it holds none.
QString sharedCopy(const QStringList &sorted, QString text)
{
    const auto at = std::lower_bound(sorted.cbegin(), sorted.cend(), text);
    return at != sorted.cend() && *at == text ? *at : text;
}

// Renames the lines whose channel id names a record of keel's to that
// record's reference, and puts them back in lineOrder. A few are taken out,
// sorted and merged in; when most are, as for a statement that names
// payments by the channel's ids alone, the list is sorted where it is, since
// a second list and the merge's buffer would take as much memory again.
void renameToKeel(const QHash<QString, QString> (&keelReference)[2], QList<StatementLine> &lines,
                  std::array<QStringList, 2> &renamedFrom)
{
    const auto keelName = [&](const StatementLine &line) -> const QString * {
        const QHash<QString, QString> &toKeel = keelReference[int(line.kind)];
        const auto to = toKeel.constFind(line.channelReference);
        return to == toKeel.cend() ? nullptr : &*to;
    };
    const qsizetype count = std::count_if(lines.cbegin(), lines.cend(), keelName);
    if (count == 0)
        return;
    if (count > lines.size() / 8) {
        for (StatementLine &line : lines)
            if (const QString *to = keelName(line)) {
                renamedFrom[size_t(line.kind)] << line.reference;
                line.reference = *to;
            }
        std::sort(lines.begin(), lines.end(), lineOrder);
        return;
    }
    // The others keep their order; the renamed are sorted and merged in.
    QList<StatementLine> renamed;
    renamed.reserve(count);
    qsizetype kept = 0;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        if (const QString *to = keelName(lines[i])) {
            renamedFrom[size_t(lines[i].kind)] << lines[i].reference;
            renamed.append(std::move(lines[i]));
            renamed.last().reference = *to;
        } else {
            if (kept != i)
                lines[kept] = std::move(lines[i]);
            ++kept;
        }
    }
    lines.resize(kept);
    std::sort(renamed.begin(), renamed.end(), lineOrder);
    for (StatementLine &line : renamed)
        lines.append(std::move(line));
    std::inplace_merge(lines.begin(), lines.begin() + kept, lines.end(), lineOrder);
}

// Second, the channel's own id: a line that names no record of keel's by the
// reference keel sent is that record's line if the channel answered keel with
// the line's id for it, and for no other record. The line is then judged
// under keel's reference, with every other line of that record.
Status DayLoader::matchChannelReferences(LoadedDay &day)
{
    if (m_unnamed[0].isEmpty() && m_unnamed[1].isEmpty())
        return {};
    QList<StatementLine> &lines = day.input.lines;
    QHash<QString, QString> keelReference[2]; // the channel's id -> keel's, by kind
    QStringList found;                        // the records the ids name
    std::array<QStringList, 2> elsewhere;     // those of them not of the day, by kind
    // What is only needed on the way is let go of before the lines are
    // renamed: a day named by the channel's ids has a million of each.
    {
        std::array<QStringList, 2> idsOf; // the channel's ids of the lines no record names
        for (const StatementLine &line : std::as_const(lines))
            if (listed(m_unnamed[size_t(line.kind)], line.reference))
                idsOf[size_t(line.kind)] << line.channelReference;
        m_unnamed = {};
        Result<PgRows> rows = m_session.query(sql(RecordsOfChannelReferences),
                                              {m_channel, LibpqConnection::arrayParam(idsOf[0]),
                                               LibpqConnection::arrayParam(idsOf[1])});
        if (!rows)
            return rows.error();
        for (QStringList &ids : idsOf)
            std::sort(ids.begin(), ids.end());
        // The hash holds the strings the lines and the day's records hold.
        for (int i = 0; i < rows->size(); ++i) {
            const LineKind kind = kindNamed(rows->view(i, 0));
            QString reference = rows->text(i, 2);
            if (const BookedRecord *record = dayRecord(day.input, kind, reference))
                reference = record->reference;
            else
                elsewhere[size_t(kind)] << reference;
            found << *keelReference[int(kind)].insert(
                sharedCopy(idsOf[size_t(kind)], rows->text(i, 1)), reference);
        }
    }
    if (found.isEmpty())
        return {};
    // The records' other lines, those the day's read did not bring, unless
    // loadLinesUnseen asked for them already in this snapshot.
    found.removeIf([this](const QString &reference) { return listed(m_asked, reference); });
    m_asked = {};
    if (!found.isEmpty())
        if (Status all = appendLinesOf(day, found); !all)
            return all;
    found = {};
    // A stored line is unique in its kind, channel id and direction: every
    // copy of a line found by id is that line, and is now judged as keel's
    // record's (a reversal with its order's payment).
    renameToKeel(keelReference, lines, day.renamedFrom);
    lines.erase(std::unique(lines.begin(), lines.end(), sameLine), lines.end());
    if (elsewhere[0].isEmpty() && elsewhere[1].isEmpty())
        return {};
    return appendNamedRecords(elsewhere[0], elsewhere[1], day.input.namedRecords);
}

Status DayLoader::countSettledUnderChannelIds(LoadedDay &day)
{
    Result<PgRows> rows = m_session.query(sql(SettledUnderChannelIds), {m_channel});
    if (!rows)
        return rows.error();
    QHash<QString, qint64> settled;
    for (int i = 0; i < rows->size(); ++i)
        settled.insert(rows->text(i, 0), rows->toInt64(i, 1));
    if (settled.isEmpty())
        return {};
    for (QList<BookedRecord> *records : {&day.input.dayRecords, &day.input.namedRecords})
        for (BookedRecord &record : *records)
            if (record.kind == LineKind::Payment)
                record.amount += settled.value(record.reference);
    return {};
}

} // namespace

Result<LoadedDay> loadReconDay(LibpqConnection &session, const QString &channel, const QDate &date,
                               qint64 asOfRun)
{
    return DayLoader(session, channel, asOfRun).load(date);
}

} // namespace keel
