#include "core/statement/StatementFields.h"

#include "core/money/Currency.h"
#include "core/statement/CsvRecords.h"
#include "core/statement/StatementReader.h"

#include <QStringDecoder>
#include <QStringEncoder>
#include <QTimeZone>

namespace keel::statementFields {

Error refusal(const char *check, QString message)
{
    return codedError(ErrorKind::Usage, QString::fromLatin1(check), std::move(message));
}

Result<QString> decodeUtf8(const QByteArray &bytes)
{
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    QString text = decoder.decode(bytes);
    if (decoder.hasError())
        return refusal(StatementCheck::Encoding, QStringLiteral("the file is not valid UTF-8"));
    if (text.startsWith(QChar(0xFEFF)))
        text.remove(0, 1);
    if (text.contains(QChar(0)))
        return refusal(StatementCheck::Encoding, QStringLiteral("the file holds a NUL character"));
    return text;
}

Result<QString> decodeGbk(const QByteArray &bytes, const QString &what)
{
    QStringDecoder decoder("GBK");
    QStringEncoder encoder("GBK");
    if (!decoder.isValid() || !encoder.isValid())
        return refusal(StatementCheck::Encoding,
                       QStringLiteral("this build of Qt cannot read GBK (it needs ICU)"));
    const QString text = decoder.decode(bytes);
    const QByteArray again = encoder.encode(text);
    if (decoder.hasError() || encoder.hasError() || again != bytes)
        return refusal(StatementCheck::Encoding, QStringLiteral("%1 is not valid GBK").arg(what));
    if (text.contains(QChar(0)))
        return refusal(StatementCheck::Encoding,
                       QStringLiteral("%1 holds a NUL character").arg(what));
    return text;
}

Result<Columns> Columns::fromHeader(const QStringList &header, const QStringList &required)
{
    Columns columns;
    for (int i = 0; i < header.size(); ++i)
        columns.m_index.insert(header[i].trimmed(), i);
    for (const QString &name : required)
        if (!columns.m_index.contains(name))
            return refusal(StatementCheck::Layout,
                           QStringLiteral("the header has no column \"%1\"").arg(name));
    return columns;
}

QString Columns::value(const QStringList &fields, const QString &name) const
{
    const int at = m_index.value(name, -1);
    return at >= 0 && at < fields.size() ? fields[at] : QString();
}

Result<qint64> majorUnits(const QString &text, const Currency &currency, const Place &where,
                          Amount kind)
{
    const bool negative = kind == Amount::Signed && text.startsWith(u'-');
    const QString digits = negative ? text.mid(1) : text;
    Result<qint64> amount = parseMajorUnits(digits, currency, QString());
    if (!amount) // read again only to say where
        return refusal(StatementCheck::Field,
                       parseMajorUnits(digits, currency, where()).error().message);
    // One movement is never more than keel lets one payment be; a total may.
    if (kind != Amount::Total && currency.maxAmount > 0 && *amount > currency.maxAmount)
        return refusal(StatementCheck::Field,
                       QStringLiteral("%1: %2 is more than one %3 payment can be")
                           .arg(where(), text.left(24), currency.code));
    return negative ? -*amount : *amount;
}

Result<qint64> majorUnits(const QString &text, const Currency &currency, const QString &where,
                          Amount kind)
{
    return majorUnits(text, currency, Place([&where] { return where; }), kind);
}

Status sameWidth(const CsvRecord &record, qsizetype headerWidth)
{
    if (record.fields.size() == headerWidth)
        return {};
    return refusal(StatementCheck::Layout, QStringLiteral("line %1 has %2 fields, the header %3")
                                               .arg(record.line)
                                               .arg(record.fields.size())
                                               .arg(headerWidth));
}

Status addChecked(qint64 &sum, qint64 amount, const QString &what)
{
    if (__builtin_add_overflow(sum, amount, &sum))
        return refusal(StatementCheck::Totals,
                       QStringLiteral("the detail's %1 overflows a 64-bit sum").arg(what));
    return {};
}

Result<QDateTime> localTime(const QString &text, const QTimeZone &zone, const QString &where)
{
    // Date and time apart, so that this machine's own zone never shifts them.
    const QDate date = QDate::fromString(text.left(10), QStringLiteral("yyyy-MM-dd"));
    const QTime time = QTime::fromString(text.mid(11), QStringLiteral("HH:mm:ss"));
    const QDateTime at(date, time, zone);
    if (text.size() != 19 || text[10] != u' ' || !date.isValid() || !time.isValid() ||
        !at.isValid())
        return refusal(StatementCheck::Field,
                       QStringLiteral("%1: \"%2\" is not a time as yyyy-MM-dd HH:mm:ss")
                           .arg(where, text.left(40)));
    return at.toUTC();
}

Result<qsizetype> readHeaderedCsv(QStringView text, const QStringList &required,
                                  const RowReader &row, const LineSink &sink)
{
    std::optional<CsvRecord> header;
    std::optional<Columns> columns;
    qsizetype lines = 0;
    const Status read = forEachCsvRecord(text, [&](const CsvRecord &record) -> Status {
        if (!header) {
            Result<Columns> named = Columns::fromHeader(record.fields, required);
            if (!named)
                return named.error();
            header = record;
            columns = *named;
            return {};
        }
        if (Status wide = sameWidth(record, header->fields.size()); !wide)
            return wide;
        Result<StatementLine> line = row(record, *columns);
        if (!line)
            return line.error();
        ++lines;
        return sink(std::move(*line));
    });
    if (!read)
        return read.error().code.isEmpty() ? refusal(StatementCheck::Layout, read.error().message)
                                           : read.error();
    if (!header)
        return refusal(StatementCheck::Layout, QStringLiteral("the file has no header"));
    return lines;
}

} // namespace keel::statementFields
