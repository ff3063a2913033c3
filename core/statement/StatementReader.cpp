#include "core/statement/StatementReader.h"

#include "core/statement/Gunzip.h"
#include "core/statement/StatementFields.h"
#include "core/statement/StatementFormats.h"

#include <QCryptographicHash>

namespace keel {
namespace {

using statementFields::refusal;

// A day's statement of a large merchant is tens of megabytes; a file that
// inflates past this is refused rather than read into memory.
constexpr qsizetype InflatedLimit = qsizetype(2) << 30;

Status checkDigest(const StatementFile &file)
{
    if (file.sha1.isEmpty())
        return {};
    const QByteArray actual = QCryptographicHash::hash(file.bytes, QCryptographicHash::Sha1);
    if (QString::fromLatin1(actual.toHex()) != file.sha1.toLower())
        return refusal(StatementCheck::Digest,
                       QStringLiteral("the file's SHA1 is %1, the channel said %2")
                           .arg(QString::fromLatin1(actual.toHex()), file.sha1.left(40)));
    return {};
}

Result<QString> decodedText(const StatementFile &file)
{
    if (!looksGzipped(file.bytes))
        return statementFields::decodeUtf8(file.bytes);
    Result<QByteArray> inflated = gunzip(file.bytes, InflatedLimit);
    if (!inflated)
        return refusal(StatementCheck::Encoding, inflated.error().message);
    return statementFields::decodeUtf8(*inflated);
}

} // namespace

Result<QList<StatementLine>> readStatement(const StatementFile &file,
                                           const CurrencyTable &currencies)
{
    if (Status digest = checkDigest(file); !digest)
        return digest.error();
    switch (file.format) {
    case StatementFormat::Csv:
    case StatementFormat::WechatPay: {
        Result<QString> text = decodedText(file);
        if (!text)
            return text.error();
        return file.format == StatementFormat::Csv ? readKeelCsv(*text, currencies)
                                                   : readWechatPayBill(*text, currencies);
    }
    case StatementFormat::Alipay:
    case StatementFormat::Stripe:
        break;
    }
    return refusal(StatementCheck::Unsupported,
                   QStringLiteral("keel does not read %1 statements yet")
                       .arg(statementFormatName(file.format)));
}

} // namespace keel
