#include "core/statement/StatementReader.h"

#include "core/statement/Gunzip.h"
#include "core/statement/StatementFields.h"
#include "core/statement/StatementFormats.h"

#include <QCryptographicHash>

namespace keel {
namespace {

using statementFields::refusal;

// A day's statement of a large merchant is tens of megabytes, a million
// lines about 300 MB; a file that inflates past this is refused rather than
// read into memory.
constexpr qsizetype InflatedLimit = qsizetype(512) << 20;

// The channel's digest is of the bill itself: for a gzip download, of what
// it inflates to (WeChat Pay's hash_value says so).
Status checkDigest(const QByteArray &bill, const QString &expected)
{
    if (expected.isEmpty())
        return {};
    const QByteArray actual = QCryptographicHash::hash(bill, QCryptographicHash::Sha1);
    if (QString::fromLatin1(actual.toHex()) != expected.toLower())
        return refusal(StatementCheck::Digest,
                       QStringLiteral("the bill's SHA1 is %1, the channel said %2")
                           .arg(QString::fromLatin1(actual.toHex()), expected.left(40)));
    return {};
}

// The bill's bytes, inflated if they came gzipped, its digest checked before
// anything in it is read.
Result<QString> checkedText(const StatementFile &file)
{
    Result<QByteArray> bill = file.bytes;
    if (looksGzipped(file.bytes)) {
        bill = gunzip(file.bytes, InflatedLimit);
        if (!bill)
            return refusal(StatementCheck::Encoding, bill.error().message);
    }
    if (Status digest = checkDigest(*bill, file.sha1); !digest)
        return digest.error();
    return statementFields::decodeUtf8(*bill);
}

} // namespace

Result<qsizetype> readStatement(const StatementFile &file, const CurrencyTable &currencies,
                                const LineSink &sink)
{
    switch (file.format) {
    case StatementFormat::Csv:
    case StatementFormat::WechatPay:
    case StatementFormat::Stripe: {
        Result<QString> text = checkedText(file);
        if (!text)
            return text.error();
        if (file.format == StatementFormat::Csv)
            return readKeelCsv(*text, currencies, sink);
        return file.format == StatementFormat::WechatPay
                   ? readWechatPayBill(*text, currencies, sink)
                   : readStripePayoutReport(*text, currencies, sink);
    }
    case StatementFormat::Alipay:
        if (Status digest = checkDigest(file.bytes, file.sha1); !digest)
            return digest.error();
        return readAlipayBill(file.bytes, currencies, sink);
    }
    return refusal(
        StatementCheck::Unsupported,
        QStringLiteral("keel does not read %1 statements").arg(statementFormatName(file.format)));
}

Status checkStatementDigest(const StatementFile &file)
{
    if (file.sha1.isEmpty())
        return {};
    if (file.format == StatementFormat::Alipay)
        return checkDigest(file.bytes, file.sha1);
    Result<QByteArray> bill = file.bytes;
    if (looksGzipped(file.bytes)) {
        bill = gunzip(file.bytes, InflatedLimit);
        if (!bill)
            return refusal(StatementCheck::Encoding, bill.error().message);
    }
    return checkDigest(*bill, file.sha1);
}

Result<QList<StatementLine>> readStatement(const StatementFile &file,
                                           const CurrencyTable &currencies)
{
    QList<StatementLine> lines;
    Result<qsizetype> read = readStatement(file, currencies, [&lines](StatementLine &&line) {
        lines.append(std::move(line));
        return Status{};
    });
    if (!read)
        return read.error();
    return lines;
}

} // namespace keel
