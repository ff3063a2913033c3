#include "core/statement/StatementFields.h"

#include "core/money/Currency.h"
#include "core/statement/StatementReader.h"

#include <QStringDecoder>
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

Result<qint64> majorUnits(const QString &text, const Currency &currency, const QString &where,
                          bool signedAllowed)
{
    const bool negative = signedAllowed && text.startsWith(u'-');
    Result<qint64> amount = parseMajorUnits(negative ? text.mid(1) : text, currency, where);
    if (!amount)
        return refusal(StatementCheck::Field, amount.error().message);
    return negative ? -*amount : *amount;
}

Result<QDateTime> localTime(const QString &text, const QTimeZone &zone, const QString &where)
{
    QDateTime at = QDateTime::fromString(text, QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    if (!at.isValid())
        return refusal(StatementCheck::Field,
                       QStringLiteral("%1: \"%2\" is not a time as yyyy-MM-dd HH:mm:ss")
                           .arg(where, text.left(40)));
    at.setTimeZone(zone);
    return at.toUTC();
}

} // namespace keel::statementFields
