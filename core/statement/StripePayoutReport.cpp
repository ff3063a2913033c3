#include "core/money/Currency.h"
#include "core/statement/CsvRecords.h"
#include "core/statement/StatementFields.h"
#include "core/statement/StatementFormats.h"
#include "core/statement/StatementReader.h"

#include <QHash>
#include <QTimeZone>

#include <cstdlib>
#include <optional>

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

// Stripe's column for the charge a dispute is of; read where present, since
// a report run without it can still name the charge by keel's metadata.
const QString ChargeId = QStringLiteral("charge_id");

// How keel reads a reporting category: which of keel's records it belongs to
// and whether it gives that record's money back.
struct Category {
    bool refund = false;     // a refund's line, else the charge's
    bool reverses = false;   // takes back (or gives again) what the record's own line moved
    bool moneyIn = true;     // its gross is positive
    bool ofDispute = false;  // its source is a dispute, not the charge
    bool channelFee = false; // Stripe's own fee, of no record of keel's
    // The line's amount is the gross times this: what a payment brought in
    // or a refund paid out; a reversal's, what it takes back of its record's
    // (negative when it gives that again).
    int sign = 1;
};

std::optional<Category> categoryNamed(const QString &name)
{
    // A dispute takes the charge's money back and a dispute reversal gives
    // it again; a charge failure (a bank debit returned after it counted as
    // paid) takes it back as a lost dispute does, under the charge's own id;
    // a refund failure gives back a refund Stripe had paid out. Network costs
    // (interchange and scheme fees on IC+ pricing) are what Stripe kept, as
    // its own fees are.
    static const QHash<QString, Category> Categories{
        {QStringLiteral("charge"), {false, false, true, false, false, 1}},
        {QStringLiteral("refund"), {true, false, false, false, false, -1}},
        {QStringLiteral("dispute"), {false, true, false, true, false, -1}},
        {QStringLiteral("dispute_reversal"), {false, true, true, true, false, -1}},
        {QStringLiteral("charge_failure"), {false, true, false, false, false, -1}},
        {QStringLiteral("refund_failure"), {true, true, true, false, false, 1}},
        {QStringLiteral("fee"), {false, false, false, false, true, 1}},
        {QStringLiteral("network_cost"), {false, false, false, false, true, 1}},
    };
    const auto found = Categories.constFind(name);
    return found == Categories.cend() ? std::nullopt : std::optional(*found);
}

class StripeRow final {
public:
    StripeRow(const CsvRecord &record, const Columns &columns, const CurrencyTable &currencies)
        : m_record(record), m_columns(columns), m_currencies(currencies)
    {}

    Result<StatementLine> line() const
    {
        const QString category = value(QStringLiteral("reporting_category"));
        const std::optional<Category> read = categoryNamed(category);
        if (!read)
            return refusal(
                StatementCheck::Unsupported,
                QStringLiteral("%1: keel reads charges, refunds, disputes and their "
                               "reversals, failed charges and refunds, fees and network "
                               "costs, not \"%2\"")
                    .arg(where(QStringLiteral("reporting_category")), category.left(40)));
        const Category &kind = *read;
        if (kind.channelFee)
            return channelFeeLine();
        StatementLine line;
        line.kind = kind.refund ? LineKind::Refund : LineKind::Payment;
        line.reverses = kind.reverses;
        // Each row under the id of its own object (a charge, refund or
        // dispute), so that no two rows share one; grouped with its charge
        // or refund by keel's reference, else by Stripe's id of that object.
        line.channelReference = value(QStringLiteral("source_id")).trimmed();
        if (line.channelReference.isEmpty())
            return refusal(
                StatementCheck::Field,
                QStringLiteral("%1: no source_id").arg(where(QStringLiteral("source_id"))));
        line.reference = value(kind.refund ? RefundReference : PaymentReference).trimmed();
        // What takes a charge's money back names the charge in charge_id;
        // Stripe's source of a failed charge may be another object.
        if (line.reference.isEmpty() && kind.reverses && !kind.refund)
            line.reference = value(ChargeId).trimmed();
        if (line.reference.isEmpty() && !kind.ofDispute)
            line.reference = line.channelReference;
        // A refund's payment_metadata is its charge's, and charge_id the
        // charge it refunds.
        if (kind.refund) {
            line.paymentReference = value(PaymentReference).trimmed();
            if (line.paymentReference.isEmpty())
                line.paymentReference = value(ChargeId).trimmed();
        }
        if (line.reference.isEmpty())
            return refusal(StatementCheck::Field,
                           QStringLiteral("%1: a %2 names its charge by charge_id or by keel's "
                                          "reference in the payment's metadata")
                               .arg(where(ChargeId), category));
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
        Result<Amounts> amounts = readAmounts();
        if (!amounts)
            return amounts.error();
        const auto &[currency, gross, fee] = *amounts;
        line.currency = currency;
        if ((kind.moneyIn && gross <= 0) || (!kind.moneyIn && gross >= 0))
            return refusal(
                StatementCheck::Field,
                QStringLiteral("%1: a %2's gross must be %3")
                    .arg(where(QStringLiteral("gross")), category,
                         kind.moneyIn ? QStringLiteral("positive") : QStringLiteral("negative")));
        if (category == QLatin1String("charge") && fee < 0)
            return refusal(StatementCheck::Field,
                           QStringLiteral("%1: a charge's fee is what Stripe kept, not negative")
                               .arg(where(QStringLiteral("fee"))));
        line.amount = kind.sign * gross;
        line.fee = fee;
        return timed(std::move(line));
    }

    // Stripe's own fee (Radar, Billing and the like): money it kept, or gave
    // back, on nothing of keel's. Stored under its balance transaction, for
    // the statement's fees to book.
    Result<StatementLine> channelFeeLine() const
    {
        Result<Amounts> amounts = readAmounts();
        if (!amounts)
            return amounts.error();
        const auto &[currency, gross, fee] = *amounts;
        if (gross == 0 || gross - fee == 0)
            return refusal(
                StatementCheck::Field,
                QStringLiteral("%1: a fee row moves no money").arg(where(QStringLiteral("gross"))));
        StatementLine line;
        line.kind = LineKind::ChannelFee;
        line.channelReference = value(QStringLiteral("balance_transaction_id")).trimmed();
        line.reference = value(QStringLiteral("source_id")).trimmed();
        if (line.reference.isEmpty())
            line.reference = line.channelReference;
        if (line.channelReference.isEmpty())
            return refusal(StatementCheck::Field,
                           QStringLiteral("%1: no balance_transaction_id")
                               .arg(where(QStringLiteral("balance_transaction_id"))));
        line.currency = currency;
        line.amount = std::abs(gross);
        line.fee = -(gross - fee); // what left the balance: Stripe's
        return timed(std::move(line));
    }

private:
    struct Amounts {
        QString currency;
        qint64 gross = 0;
        qint64 fee = 0;
    };

    // The row's currency and money, its net checked against them.
    Result<Amounts> readAmounts() const
    {
        const std::optional<Currency> currency =
            m_currencies.find(value(QStringLiteral("currency")).toUpper());
        if (!currency)
            return refusal(StatementCheck::Field,
                           QStringLiteral("%1: \"%2\" is not a known currency")
                               .arg(where(QStringLiteral("currency")),
                                    value(QStringLiteral("currency")).left(8)));
        Result<qint64> gross = signedUnits(QStringLiteral("gross"), *currency);
        Result<qint64> fee = signedUnits(QStringLiteral("fee"), *currency);
        Result<qint64> net = signedUnits(QStringLiteral("net"), *currency);
        for (const Result<qint64> *amount : {&gross, &fee, &net})
            if (!*amount)
                return amount->error();
        if (*net != *gross - *fee)
            return refusal(StatementCheck::Totals,
                           QStringLiteral("%1: net %2 is not gross %3 less fee %4")
                               .arg(where(QStringLiteral("net")), value(QStringLiteral("net")),
                                    value(QStringLiteral("gross")), value(QStringLiteral("fee"))));
        return Amounts{currency->code, *gross, *fee};
    }

    Result<StatementLine> timed(StatementLine &&line) const
    {
        Result<QDateTime> at =
            statementFields::localTime(value(QStringLiteral("created_utc")), QTimeZone::utc(),
                                       where(QStringLiteral("created_utc")));
        if (!at)
            return at.error();
        line.occurredAt = *at;
        return std::move(line);
    }

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
