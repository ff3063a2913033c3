#include "core/money/Currency.h"
#include "core/statement/CsvRecords.h"
#include "core/statement/StatementFields.h"
#include "core/statement/StatementFormats.h"
#include "core/statement/StatementReader.h"

namespace keel {
namespace {

using statementFields::Columns;
using statementFields::refusal;

const QStringList CsvColumns{QStringLiteral("reference"),  QStringLiteral("channel_reference"),
                             QStringLiteral("type"),       QStringLiteral("amount"),
                             QStringLiteral("currency"),   QStringLiteral("fee"),
                             QStringLiteral("occurred_at")};
const QString PaymentReferenceColumn = QStringLiteral("payment_reference");

Result<QDateTime> isoTime(const QString &text, const statementFields::Place &where)
{
    const QDateTime at = QDateTime::fromString(text, Qt::ISODateWithMs);
    // A time without an offset would be read in this machine's zone, which
    // moves a line between business days: refused.
    if (!at.isValid() || at.timeSpec() == Qt::LocalTime)
        return refusal(StatementCheck::Field,
                       QStringLiteral("%1: \"%2\" is not an ISO 8601 time with Z or an offset")
                           .arg(where(), text.left(40)));
    return at.toUTC();
}

Result<StatementLine> csvLine(const CsvRecord &record, const Columns &columns,
                              const CurrencyTable &currencies)
{
    const auto where = [&](const QString &column) {
        return QStringLiteral("line %1 %2").arg(record.line).arg(column);
    };
    // Small enough for std::function to hold without allocating.
    const auto place = [&where](const char *column) -> statementFields::Place {
        return [&where, column] {
            return where(QLatin1String(column));
        };
    };
    const auto value = [&](const QString &column) {
        return columns.value(record.fields, column);
    };
    StatementLine line;
    const QString type = value(QStringLiteral("type"));
    if (type != QLatin1String("payment") && type != QLatin1String("refund") &&
        type != QLatin1String("reversal"))
        return refusal(StatementCheck::Field,
                       QStringLiteral("%1: \"%2\" is not payment, refund or reversal")
                           .arg(where(QStringLiteral("type")), type.left(40)));
    // A reversal gives a payment back under the payment's own references.
    line.reverses = type == QLatin1String("reversal");
    line.kind = type == QLatin1String("refund") ? LineKind::Refund : LineKind::Payment;
    line.reference = value(QStringLiteral("reference")).trimmed();
    line.channelReference = value(QStringLiteral("channel_reference")).trimmed();
    if (line.reference.isEmpty() || line.channelReference.isEmpty())
        return refusal(StatementCheck::Field,
                       QStringLiteral("line %1: reference and channel_reference are both required")
                           .arg(record.line));
    // An optional column: the charge a refund gave money back from, by keel's
    // id or the channel's.
    line.paymentReference = value(PaymentReferenceColumn).trimmed();
    if (!line.paymentReference.isEmpty() && line.kind != LineKind::Refund)
        return refusal(
            StatementCheck::Field,
            QStringLiteral("%1: only a refund names the payment it gives money back from")
                .arg(where(PaymentReferenceColumn)));
    const std::optional<Currency> currency = currencies.find(value(QStringLiteral("currency")));
    if (!currency)
        return refusal(StatementCheck::Field, QStringLiteral("%1: \"%2\" is not a known currency")
                                                  .arg(where(QStringLiteral("currency")),
                                                       value(QStringLiteral("currency")).left(8)));
    line.currency = currency->code;
    Result<qint64> amount =
        statementFields::majorUnits(value(QStringLiteral("amount")), *currency, place("amount"),
                                    statementFields::Amount::Movement);
    if (!amount)
        return amount.error();
    if (*amount == 0)
        return refusal(
            StatementCheck::Field,
            QStringLiteral("%1: zero moves nothing").arg(where(QStringLiteral("amount"))));
    line.amount = *amount;
    Result<qint64> fee = statementFields::majorUnits(value(QStringLiteral("fee")), *currency,
                                                     place("fee"), statementFields::Amount::Signed);
    if (!fee)
        return fee.error();
    line.fee = *fee;
    Result<QDateTime> at = isoTime(value(QStringLiteral("occurred_at")), place("occurred_at"));
    if (!at)
        return at.error();
    line.occurredAt = *at;
    return line;
}

} // namespace

Result<qsizetype> readKeelCsv(QStringView text, const CurrencyTable &currencies,
                              const LineSink &sink)
{
    return statementFields::readHeaderedCsv(
        text, CsvColumns,
        [&currencies](const CsvRecord &record, const Columns &columns) {
            return csvLine(record, columns, currencies);
        },
        sink);
}

} // namespace keel
