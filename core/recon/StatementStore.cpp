#include "core/recon/StatementStore.h"

#include "core/db/LibpqConnection.h"
#include "core/db/PgTransaction.h"
#include "core/recon/QuarterHours.h"

#include <QCryptographicHash>

#include <algorithm>

namespace keel {
namespace {

constexpr char InsertStatement[] =
    "INSERT INTO keel.recon_statements (channel, format, file_sha256, line_count) "
    "VALUES ($1, $2, $3, 0) ON CONFLICT (channel, file_sha256) DO NOTHING RETURNING id";
constexpr char StoredBefore[] =
    "SELECT id, line_count, withdrawn_at IS NOT NULL, format FROM keel.recon_statements "
    "WHERE channel = $1 AND file_sha256 = $2";
constexpr char DaysOfStatement[] =
    "SELECT DISTINCT (l.occurred_at AT TIME ZONE c.time_zone)::date::text "
    "FROM keel.recon_lines l JOIN keel.recon_channels c ON c.channel = l.channel "
    "WHERE l.statement_id = $1 ORDER BY 1";
// The channel's business days of the quarter hours its lines fell in (see
// QuarterHours), cut as a run cuts them.
constexpr char DaysOfQuarterHours[] =
    "SELECT DISTINCT (to_timestamp(q / 1000.0) AT TIME ZONE c.time_zone)::date::text "
    "FROM keel.recon_channels c CROSS JOIN unnest($2::bigint[]) q WHERE c.channel = $1 "
    "ORDER BY 1";
constexpr char KnownChannel[] = "SELECT 1 FROM keel.recon_channels WHERE channel = $1";
constexpr char CopyLines[] =
    "COPY keel.recon_lines (statement_id, channel, line_no, kind, reference, channel_reference, "
    "amount, currency, fee, occurred_at, reverses, payment_reference) FROM STDIN";

// COPY's text format: a backslash, tab or line break in a value is escaped.
void appendCopyField(QByteArray &out, const QString &value)
{
    const QByteArray bytes = value.toUtf8();
    const bool plain = std::none_of(bytes.cbegin(), bytes.cend(), [](char c) {
        return c == '\\' || c == '\t' || c == '\n' || c == '\r';
    });
    if (plain) {
        out += bytes;
        return;
    }
    QByteArray escaped = bytes;
    out += escaped.replace('\\', "\\\\")
               .replace('\t', "\\t")
               .replace('\n', "\\n")
               .replace('\r', "\\r");
}

void appendDigits(QByteArray &out, int value, int width)
{
    char digits[8];
    for (int i = width - 1; i >= 0; --i, value /= 10)
        digits[i] = char('0' + value % 10);
    out.append(digits, width);
}

// A UTC time as COPY reads it, written by hand: QDateTime's own formatting
// was a third of an import's time on the client.
void appendUtcTime(QByteArray &out, const QDateTime &at)
{
    const QDateTime utc = at.toUTC();
    const QDate date = utc.date();
    const QTime time = utc.time();
    if (date.year() < 1 || date.year() > 9999) {
        out += utc.toString(Qt::ISODateWithMs).toLatin1();
        return;
    }
    appendDigits(out, date.year(), 4);
    out += '-';
    appendDigits(out, date.month(), 2);
    out += '-';
    appendDigits(out, date.day(), 2);
    out += 'T';
    appendDigits(out, time.hour(), 2);
    out += ':';
    appendDigits(out, time.minute(), 2);
    out += ':';
    appendDigits(out, time.second(), 2);
    out += '.';
    appendDigits(out, time.msec(), 3);
    out += 'Z';
}

// A statement's lines as COPY's text rows, handed to the server in parts
// while the file is still being read.
class CopyRows final {
public:
    CopyRows(LibpqConnection &session, qint64 statementId, const QString &channel)
        : m_session(session)
    {
        m_prefix = QByteArray::number(statementId) + '\t';
        appendCopyField(m_prefix, channel);
        m_prefix += '\t';
        m_rows.reserve(FlushAt + 4096);
    }

    Status add(const StatementLine &line)
    {
        m_rows += m_prefix;
        m_rows += QByteArray::number(++m_lineNo);
        m_rows += '\t';
        m_rows += lineKindName(line.kind).toLatin1();
        m_rows += '\t';
        appendCopyField(m_rows, line.reference);
        m_rows += '\t';
        appendCopyField(m_rows, line.channelReference);
        m_rows += '\t';
        m_rows += QByteArray::number(line.amount);
        m_rows += '\t';
        appendCopyField(m_rows, line.currency);
        m_rows += '\t';
        m_rows += QByteArray::number(line.fee);
        m_rows += '\t';
        appendUtcTime(m_rows, line.occurredAt);
        m_rows += line.reverses ? "\tt\t" : "\tf\t";
        if (line.paymentReference.isEmpty())
            m_rows += "\\N";
        else
            appendCopyField(m_rows, line.paymentReference);
        m_rows += '\n';
        return m_rows.size() >= FlushAt ? flush() : Status{};
    }

    Status flush()
    {
        Status sent = m_session.putCopyData(m_rows);
        m_rows.resize(0); // keeps the buffer for the next part
        return sent;
    }

private:
    // Large enough that a part costs little to send, small enough that the
    // server starts on the rows while the rest are read.
    static constexpr qsizetype FlushAt = qsizetype(1) << 20;

    LibpqConnection &m_session;
    QByteArray m_prefix;
    QByteArray m_rows;
    int m_lineNo = 0;
};

// The lines read from the file into a COPY begun for them, or the reason
// they are not all there: the COPY is then abandoned.
Result<qsizetype> copyLines(LibpqConnection &session, qint64 statementId, const QString &channel,
                            const StatementFile &file, const CurrencyTable &currencies,
                            QuarterHours &times)
{
    if (Status begun = session.beginCopyIn(CopyLines); !begun)
        return begun.error();
    CopyRows rows(session, statementId, channel);
    Result<qsizetype> read = readStatement(file, currencies, [&rows, &times](StatementLine &&line) {
        times.add(line.occurredAt);
        return rows.add(line);
    });
    if (read)
        if (Status sent = rows.flush(); !sent)
            read = sent.error();
    if (!read) {
        session.abandonCopyIn();
        return read;
    }
    if (Status copied = session.endCopyIn(); !copied)
        return copied.error();
    return read;
}

// The days a statement's lines fall on, one per row.
QStringList daysIn(const PgRows &rows)
{
    QStringList days;
    for (int i = 0; i < rows.size(); ++i)
        days << rows.text(i, 0);
    return days;
}

} // namespace

Result<ImportedStatement> importStatement(LibpqConnection &session, const QString &channel,
                                          const StatementFile &file,
                                          const CurrencyTable &currencies)
{
    Result<PgRows> known = session.query(KnownChannel, {channel.toUtf8()});
    if (!known)
        return known.error();
    if (known->size() == 0)
        return fieldError(
            QStringLiteral("channel"), QStringLiteral("unknown_channel"),
            QStringLiteral("keel knows no channel \"%1\" (recon_channels)").arg(channel.left(40)));
    const QByteArray digest = LibpqConnection::byteaParam(
        QCryptographicHash::hash(file.bytes, QCryptographicHash::Sha256));
    PgTransaction transaction(session);
    if (!transaction.begun())
        return transaction.begun().error();
    // The database counts the lines as they are stored (migration 0035).
    Result<PgRows> inserted = session.query(
        InsertStatement, {channel.toUtf8(), statementFormatName(file.format).toUtf8(), digest});
    if (!inserted)
        return inserted.error();
    if (inserted->size() == 0) {
        Result<PgRows> before = session.query(StoredBefore, {channel.toUtf8(), digest});
        if (!before)
            return before.error();
        if (before->size() == 0)
            return makeError(ErrorKind::Failed,
                             QStringLiteral("the statement was stored and is gone again"));
        // The very file a person withdrew: importing it again changes nothing,
        // and saying "stored" would hide that.
        if (before->text(0, 2) == QLatin1String("t"))
            return codedError(ErrorKind::Usage, QStringLiteral("statement_withdrawn"),
                              QStringLiteral("this file is statement %1 of channel %2, which was "
                                             "withdrawn: import the corrected file")
                                  .arg(before->text(0, 0), channel));
        // Recognised by its bytes, still checked as the person asked: a
        // digest that does not match, or another format, is not "imported".
        if (Status asked = checkStatementDigest(file); !asked)
            return asked.error();
        if (before->text(0, 3) != statementFormatName(file.format))
            return codedError(ErrorKind::Usage, QStringLiteral("statement_format"),
                              QStringLiteral("this file is statement %1 of channel %2, imported "
                                             "as %3, not %4")
                                  .arg(before->text(0, 0), channel, before->text(0, 3),
                                       statementFormatName(file.format)));
        Result<PgRows> stored = session.query(DaysOfStatement, {before->value(0, 0)});
        if (!stored)
            return stored.error();
        return ImportedStatement{before->toInt64(0, 0), int(before->toInt64(0, 1)), true,
                                 daysIn(*stored)};
    }
    const qint64 id = inserted->toInt64(0, 0);
    QuarterHours times;
    Result<qsizetype> copied = copyLines(session, id, channel, file, currencies, times);
    if (!copied) {
        // A line the channel reported once is stored once: the same bill
        // again, in other bytes, is refused by its lines.
        if (copied.error().is(ErrorCode::UniqueViolation))
            return codedError(ErrorKind::Usage, QStringLiteral("statement_overlap"),
                              QStringLiteral("the statement repeats lines already imported from "
                                             "another file of channel %1: %2")
                                  .arg(channel, copied.error().message));
        return copied.error();
    }
    Result<PgRows> days = session.query(DaysOfQuarterHours, {channel.toUtf8(), times.arrayParam()});
    if (!days)
        return days.error();
    if (Status committed = transaction.commit(); !committed)
        return committed.error();
    // The day's run reads these lines back soon: plan it on statistics that
    // know them. Only a help: the statement is stored whatever this says, and
    // autovacuum counts the lines later.
    (void)session.query("SELECT keel.recon_lines_analyze()");
    return ImportedStatement{id, int(*copied), false, daysIn(*days)};
}

} // namespace keel
