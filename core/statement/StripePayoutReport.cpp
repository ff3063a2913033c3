#include "core/money/Currency.h"
#include "core/statement/CsvRecords.h"
#include "core/statement/StatementFields.h"
#include "core/statement/StatementFormats.h"
#include "core/statement/StatementReader.h"

#include <QTimeZone>

namespace keel {
namespace {

using statementFields::Columns;
using statementFields::refusal;

// The itemized payout reconciliation report (payout_reconciliation.itemized.5),
// run with keel's reference in the payment's and the refund's metadata:
// Stripe names a charge or refund by its own id (source_id) and keel's id
// only where keel put it. A row without it was not made through keel; it is
// read under Stripe's id, which keel does not know (missing_at_keel).
const QString PaymentReference = QStringLiteral("payment_metadata[keel_reference]");
const QString RefundReference = QStringLiteral("refund_metadata[keel_reference]");
const QStringList StripeColumns{QStringLiteral("balance_transaction_id"),
                                QStringLiteral("created_utc"),
                                QStringLiteral("currency"),
                                QStringLiteral("gross"),
                                QStringLiteral("fee"),
                                QStringLiteral("net"),
                                QStringLiteral("reporting_category"),
                                QStringLiteral("source_id"),
                                PaymentReference,
                                RefundReference};

class StripeRow final {
public:
    StripeRow(const CsvRecord &record, const Columns &columns, const CurrencyTable &currencies)
        : m_record(record), m_columns(columns), m_currencies(currencies)
    {}

    Result<StatementLine> line() const
    {
        const QString category = value(QStringLiteral("reporting_category"));
        const bool charge = category == QLatin1String("charge");
        if (!charge && category != QLatin1String("refund"))
            return refusal(
                StatementCheck::Unsupported,
                QStringLiteral("%1: keel reads charges and refunds, not \"%2\"")
                    .arg(where(QStringLiteral("reporting_category")), category.left(40)));
        StatementLine line;
        line.kind = charge ? LineKind::Payment : LineKind::Refund;
        line.channelReference = value(QStringLiteral("source_id")).trimmed();
        line.reference = value(charge ? PaymentReference : RefundReference).trimmed();
        if (line.reference.isEmpty())
            line.reference = line.channelReference;
        if (line.channelReference.isEmpty())
            return refusal(
                StatementCheck::Field,
                QStringLiteral("%1: no source_id").arg(where(QStringLiteral("source_id"))));
        // Settled in another currency than the customer paid in: keel's
        // record is in the customer's, and converting is not matching.
        const QString paidIn = value(QStringLiteral("customer_facing_currency"));
        if (!paidIn.isEmpty() &&
            paidIn.compare(value(QStringLiteral("currency")), Qt::CaseInsensitive) != 0)
            return refusal(StatementCheck::Unsupported,
                           QStringLiteral("%1: paid in %2, settled in %3; keel does not match "
                                          "across currencies yet")
                               .arg(where(QStringLiteral("currency")), paidIn.left(8),
                                    value(QStringLiteral("currency")).left(8)));
        const std::optional<Currency> currency =
            m_currencies.find(value(QStringLiteral("currency")).toUpper());
        if (!currency)
            return refusal(StatementCheck::Field,
                           QStringLiteral("%1: \"%2\" is not a known currency")
                               .arg(where(QStringLiteral("currency")),
                                    value(QStringLiteral("currency")).left(8)));
        line.currency = currency->code;
        Result<qint64> gross = signedUnits(QStringLiteral("gross"), *currency);
        Result<qint64> fee = signedUnits(QStringLiteral("fee"), *currency);
        Result<qint64> net = signedUnits(QStringLiteral("net"), *currency);
        for (const Result<qint64> *read : {&gross, &fee, &net})
            if (!*read)
                return read->error();
        // A charge brings money in, a refund takes it out.
        if ((charge && *gross <= 0) || (!charge && *gross >= 0))
            return refusal(StatementCheck::Field, QStringLiteral("%1: a %2's gross must be %3")
                                                      .arg(where(QStringLiteral("gross")), category,
                                                           charge ? QStringLiteral("positive")
                                                                  : QStringLiteral("negative")));
        if (charge && *fee < 0)
            return refusal(StatementCheck::Field,
                           QStringLiteral("%1: a charge's fee is what Stripe kept, not negative")
                               .arg(where(QStringLiteral("fee"))));
        if (*net != *gross - *fee)
            return refusal(StatementCheck::Totals,
                           QStringLiteral("%1: net %2 is not gross %3 less fee %4")
                               .arg(where(QStringLiteral("net")), value(QStringLiteral("net")),
                                    value(QStringLiteral("gross")), value(QStringLiteral("fee"))));
        line.amount = charge ? *gross : -*gross;
        line.fee = *fee;
        Result<QDateTime> at =
            statementFields::localTime(value(QStringLiteral("created_utc")), QTimeZone::utc(),
                                       where(QStringLiteral("created_utc")));
        if (!at)
            return at.error();
        line.occurredAt = *at;
        return line;
    }

private:
    QString value(const QString &column) const { return m_columns.value(m_record.fields, column); }
    QString where(const QString &column) const
    {
        return QStringLiteral("line %1 %2").arg(m_record.line).arg(column).trimmed();
    }
    Result<qint64> signedUnits(const QString &column, const Currency &currency) const
    {
        return statementFields::majorUnits(value(column), currency, where(column),
                                           statementFields::Amount::Signed);
    }

    const CsvRecord &m_record;
    const Columns &m_columns;
    const CurrencyTable &m_currencies;
};

} // namespace

Result<qsizetype> readStripePayoutReport(QStringView text, const CurrencyTable &currencies,
                                         const LineSink &sink)
{
    return statementFields::readHeaderedCsv(
        text, StripeColumns,
        [&currencies](const CsvRecord &record, const Columns &columns) {
            return StripeRow(record, columns, currencies).line();
        },
        sink);
}

} // namespace keel
