#include "core/money/Currency.h"
#include "core/statement/CsvRecords.h"
#include "core/statement/StatementFields.h"
#include "core/statement/StatementFormats.h"
#include "core/statement/StatementReader.h"

#include <QTimeZone>

// WeChat Pay's v3 trade bill (GET /v3/bill/tradebill, bill_type=ALL): a header
// row, detail rows whose every field starts with a backtick (so spreadsheets
// keep long numbers whole), then a summary header and one summary row, also
// backticked. Amounts are in yuan, times in Beijing time. Columns are found by
// name: WeChat Pay says their order may change.
namespace keel {
namespace {

using statementFields::Columns;
using statementFields::refusal;

const QString SummaryFirstColumn = QStringLiteral("总交易单数");

struct Totals {
    qint64 settled = 0;
    qint64 refunded = 0;
    qint64 fees = 0;
    qint64 ordered = 0;
};

Result<QStringList> unticked(const CsvRecord &record)
{
    QStringList fields;
    fields.reserve(record.fields.size());
    for (const QString &field : record.fields) {
        if (!field.startsWith(u'`'))
            return refusal(StatementCheck::Layout,
                           QStringLiteral("line %1: a field lacks the backtick prefix: \"%2\"")
                               .arg(record.line)
                               .arg(field.left(40)));
        fields.append(field.mid(1));
    }
    return fields;
}

class BillReader final {
public:
    BillReader(const CurrencyTable &currencies, const LineSink &sink)
        : m_currencies(currencies), m_sink(sink)
    {}

    Status take(const CsvRecord &record);
    Result<qsizetype> finish();

private:
    Status readDetail(const CsvRecord &record, const Columns &columns);
    Result<StatementLine> lineFrom(const QStringList &fields, const Columns &columns,
                                   const QString &where, const Currency &currency);
    Status checkSummary(const CsvRecord &header, const CsvRecord &row);
    Result<qint64> amount(const QString &text, const QString &where) const;

    enum class Part { Header, Detail, Summary, Done };

    const CurrencyTable &m_currencies;
    const LineSink &m_sink;
    Part m_part = Part::Header;
    std::optional<Columns> m_columns;
    qsizetype m_width = 0;
    CsvRecord m_summaryHeader;
    QTimeZone m_zone{QByteArrayLiteral("Asia/Shanghai")};
    std::optional<Currency> m_currency;
    qsizetype m_lines = 0;
    Totals m_detail;
};

// The bill arrives record by record: its header, detail rows until the
// summary header, then exactly one summary row.
Status BillReader::take(const CsvRecord &record)
{
    switch (m_part) {
    case Part::Header: {
        Result<Columns> columns = Columns::fromHeader(
            record.fields,
            {QStringLiteral("交易时间"), QStringLiteral("微信订单号"), QStringLiteral("商户订单号"),
             QStringLiteral("交易状态"), QStringLiteral("货币种类"), QStringLiteral("应结订单金额"),
             QStringLiteral("微信退款单号"), QStringLiteral("商户退款单号"),
             QStringLiteral("退款金额"), QStringLiteral("手续费"), QStringLiteral("订单金额")});
        if (!columns)
            return columns.error();
        m_columns = *columns;
        m_width = record.fields.size();
        m_part = Part::Detail;
        return {};
    }
    case Part::Detail:
        if (record.fields.constFirst() == SummaryFirstColumn) {
            m_summaryHeader = record;
            m_part = Part::Summary;
            return {};
        }
        if (Status wide = statementFields::sameWidth(record, m_width); !wide)
            return wide;
        return readDetail(record, *m_columns);
    case Part::Summary:
        m_part = Part::Done;
        return checkSummary(m_summaryHeader, record);
    case Part::Done:
        break;
    }
    return refusal(
        StatementCheck::Layout,
        QStringLiteral("line %1: the bill goes on after its summary row").arg(record.line));
}

Result<qsizetype> BillReader::finish()
{
    if (m_part != Part::Done)
        return refusal(StatementCheck::Layout,
                       QStringLiteral("the bill does not end with one summary header (%1) and "
                                      "one summary row: truncated")
                           .arg(SummaryFirstColumn));
    return m_lines;
}

Status BillReader::readDetail(const CsvRecord &record, const Columns &columns)
{
    Result<QStringList> fields = unticked(record);
    if (!fields)
        return fields.error();
    const QString where = QStringLiteral("line %1").arg(record.line);
    const std::optional<Currency> currency =
        m_currencies.find(columns.value(*fields, QStringLiteral("货币种类")));
    if (!currency)
        return refusal(StatementCheck::Field,
                       QStringLiteral("%1 货币种类: not a known currency").arg(where));
    if (m_currency && m_currency->code != currency->code)
        return refusal(StatementCheck::Layout,
                       QStringLiteral("%1: a bill in more than one currency").arg(where));
    m_currency = currency;
    Result<StatementLine> line = lineFrom(*fields, columns, where, *currency);
    if (!line)
        return line.error();
    ++m_lines;
    return m_sink(std::move(*line));
}

Result<StatementLine> BillReader::lineFrom(const QStringList &fields, const Columns &columns,
                                           const QString &where, const Currency &currency)
{
    const auto value = [&](const char *name) {
        return columns.value(fields, QString::fromUtf8(name));
    };
    using statementFields::Amount;
    const auto money = [&](const char *name, Amount kind) {
        return statementFields::majorUnits(value(name), currency,
                                           where + u' ' + QString::fromUtf8(name), kind);
    };
    Result<qint64> settled = money("应结订单金额", Amount::Movement);
    Result<qint64> refunded = money("退款金额", Amount::Movement);
    Result<qint64> fee = money("手续费", Amount::Signed);
    Result<qint64> ordered = money("订单金额", Amount::Movement);
    for (const Result<qint64> *read : {&settled, &refunded, &fee, &ordered})
        if (!*read)
            return read->error();
    for (const Status &added : {statementFields::addChecked(m_detail.settled, *settled, where),
                                statementFields::addChecked(m_detail.refunded, *refunded, where),
                                statementFields::addChecked(m_detail.fees, *fee, where),
                                statementFields::addChecked(m_detail.ordered, *ordered, where)})
        if (!added)
            return added.error();
    const QString status = value("交易状态");
    if (status != QLatin1String("SUCCESS") && status != QLatin1String("REFUND") &&
        status != QLatin1String("REVOKED"))
        return refusal(StatementCheck::Field,
                       QStringLiteral("%1 交易状态: \"%2\" is not SUCCESS, REFUND or REVOKED")
                           .arg(where, status.left(20)));
    // A payment is the customer's order as keel charged it; what WeChat Pay
    // settles is less by any coupon it funded. A REVOKED row is a paid order
    // the merchant reversed: WeChat Pay gave its money back, with no refund
    // number of the merchant's, so it stands under the order's own numbers.
    const bool payment = status == QLatin1String("SUCCESS");
    const bool revoked = status == QLatin1String("REVOKED");
    StatementLine line;
    line.kind = payment || revoked ? LineKind::Payment : LineKind::Refund;
    line.reverses = revoked;
    line.reference = value(line.kind == LineKind::Payment ? "商户订单号" : "商户退款单号");
    line.channelReference = value(line.kind == LineKind::Payment ? "微信订单号" : "微信退款单号");
    // A refund's row carries its order's numbers too.
    if (line.kind == LineKind::Refund) {
        line.paymentReference = value("商户订单号");
        if (line.paymentReference.isEmpty())
            line.paymentReference = value("微信订单号");
    }
    line.amount = *ordered;
    if (!payment) {
        // Given back as keel asked: the refund's or the reversed order's
        // gross. 退款金额 leaves out a coupon WeChat Pay funded, which comes
        // back too, and would show as a difference on every such refund.
        const auto optional = [&](const char *name) -> Result<qint64> {
            return value(name).isEmpty() ? Result<qint64>(qint64(0))
                                         : money(name, Amount::Movement);
        };
        Result<qint64> asked = optional("申请退款金额");
        Result<qint64> coupon = optional("充值券退款金额");
        if (!asked)
            return asked.error();
        if (!coupon)
            return coupon.error();
        line.amount = *asked != 0                ? *asked
                      : revoked && *ordered != 0 ? *ordered
                                                 : *refunded + *coupon;
    }
    line.fee = *fee;
    if (line.amount == 0 || line.reference.isEmpty() || line.channelReference.isEmpty())
        return refusal(
            StatementCheck::Field,
            QStringLiteral("%1: a %2 without an amount, the merchant's number or "
                           "WeChat Pay's")
                .arg(where, revoked ? QStringLiteral("reversal") : lineKindName(line.kind)));
    line.currency = currency.code;
    Result<QDateTime> at = statementFields::localTime(value("交易时间"), m_zone, where);
    if (!at)
        return at.error();
    line.occurredAt = *at;
    return line;
}

Status BillReader::checkSummary(const CsvRecord &header, const CsvRecord &row)
{
    Result<Columns> columns = Columns::fromHeader(
        header.fields,
        {SummaryFirstColumn, QStringLiteral("应结订单总金额"), QStringLiteral("退款总金额"),
         QStringLiteral("手续费总金额"), QStringLiteral("订单总金额")});
    if (!columns)
        return columns.error();
    Result<QStringList> fields = unticked(row);
    if (!fields)
        return fields.error();
    const auto total = [&](const char *name, qint64 detail) -> Status {
        const QString column = QString::fromUtf8(name);
        Result<qint64> stated =
            amount(columns->value(*fields, column), QStringLiteral("summary %1").arg(column));
        if (!stated)
            return stated.error();
        if (*stated != detail)
            return refusal(StatementCheck::Totals,
                           QStringLiteral("the detail adds up to %1 minor units for %2, the "
                                          "summary says %3")
                               .arg(detail)
                               .arg(column)
                               .arg(*stated));
        return {};
    };
    const QString count = columns->value(*fields, SummaryFirstColumn);
    if (count != QString::number(m_lines))
        return refusal(StatementCheck::Totals,
                       QStringLiteral("the bill has %1 detail rows, its summary says %2")
                           .arg(m_lines)
                           .arg(count.left(20)));
    for (const Status &tied :
         {total("应结订单总金额", m_detail.settled), total("退款总金额", m_detail.refunded),
          total("手续费总金额", m_detail.fees), total("订单总金额", m_detail.ordered)})
        if (!tied)
            return tied;
    return {};
}

// A summary total: the fees may sum below zero, and any total may pass what
// one payment can be.
Result<qint64> BillReader::amount(const QString &text, const QString &where) const
{
    // An empty bill has no row to name its currency; WeChat Pay bills in CNY.
    const std::optional<Currency> currency =
        m_currency ? m_currency : m_currencies.find(QStringLiteral("CNY"));
    if (!currency)
        return refusal(StatementCheck::Field, QStringLiteral("CNY is not a known currency"));
    const bool negative = text.startsWith(u'-');
    Result<qint64> total = statementFields::majorUnits(negative ? text.mid(1) : text, *currency,
                                                       where, statementFields::Amount::Total);
    if (!total)
        return total.error();
    return negative ? -*total : *total;
}

} // namespace

Result<qsizetype> readWechatPayBill(QStringView text, const CurrencyTable &currencies,
                                    const LineSink &sink)
{
    BillReader reader(currencies, sink);
    const Status read =
        forEachCsvRecord(text, [&](const CsvRecord &record) { return reader.take(record); });
    if (!read)
        return read.error().code.isEmpty() ? refusal(StatementCheck::Layout, read.error().message)
                                           : read.error();
    return reader.finish();
}

} // namespace keel
