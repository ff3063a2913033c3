#include "core/money/Currency.h"
#include "core/statement/CsvRecords.h"
#include "core/statement/StatementFields.h"
#include "core/statement/StatementFormats.h"
#include "core/statement/StatementReader.h"
#include "core/statement/ZipArchive.h"

#include <QRegularExpression>
#include <QTimeZone>

// Alipay's trade bill (业务账单, alipay.data.dataservice.bill.downloadurl.query
// with bill_type=trade): a ZIP of GBK CSVs. The detail file (…业务明细.csv)
// holds '#' comment lines, a start marker, a header, one row per trade or
// refund, an end marker, then the totals Alipay states for them:
//   #交易合计：N笔，商家实收共X元…
//   #退款合计：M笔，商家实收退款共Y元…
// Columns are read by name; fields may carry padding tabs. Amounts are yuan,
// a refund's negative; times are Beijing time.
namespace keel {
namespace {

using statementFields::Amount;
using statementFields::Columns;
using statementFields::refusal;

const QString DetailMarker = QStringLiteral("业务明细列表");
const QString EndMarker = QStringLiteral("业务明细列表结束");

struct Stated {
    qint64 count = 0;
    qint64 received = 0; // 商家实收, in minor units
};

struct Side {
    qint64 count = 0;
    qint64 received = 0;
};

// The detail file: its name says 业务明细 and not 汇总 (the summary).
Result<QString> detailText(const QByteArray &archive)
{
    Result<QList<ZipEntry>> entries = readZip(archive, qsizetype(512) << 20);
    if (!entries)
        return refusal(StatementCheck::Encoding, entries.error().message);
    for (const ZipEntry &entry : std::as_const(*entries)) {
        Result<QString> name =
            entry.utf8Name ? statementFields::decodeUtf8(entry.name)
                           : statementFields::decodeGbk(entry.name, QStringLiteral("a name"));
        if (name && name->contains(QStringLiteral("业务明细")) &&
            !name->contains(QStringLiteral("汇总")))
            return statementFields::decodeGbk(entry.data, *name);
    }
    return refusal(StatementCheck::Layout,
                   QStringLiteral("the archive holds no 业务明细 (detail) file"));
}

Result<qint64> signedYuan(const QString &text, const Currency &cny, const QString &where)
{
    const bool negative = text.startsWith(u'-');
    Result<qint64> amount =
        statementFields::majorUnits(negative ? text.mid(1) : text, cny, where, Amount::Total);
    if (!amount)
        return amount.error();
    return negative ? -*amount : *amount;
}

Result<Stated> statedTotal(const QString &line, const QString &pattern, const Currency &cny)
{
    const QRegularExpressionMatch match = QRegularExpression(pattern).match(line);
    if (!match.hasMatch())
        return refusal(StatementCheck::Layout,
                       QStringLiteral("the totals line \"%1\" does not read as Alipay writes it")
                           .arg(line.left(60)));
    Result<qint64> received = signedYuan(match.captured(2), cny, QStringLiteral("a stated total"));
    if (!received)
        return received.error();
    return Stated{match.captured(1).toLongLong(), *received};
}

class BillReader final {
public:
    BillReader(const Currency &cny, const LineSink &sink) : m_cny(cny), m_sink(sink) {}

    Status take(const CsvRecord &record);
    Result<qsizetype> finish();

private:
    enum class Part { Preamble, Header, Detail, Totals };
    Status readRow(const CsvRecord &record);
    Result<StatementLine> lineFrom(const QStringList &fields, const QString &where);

    const Currency &m_cny;
    const LineSink &m_sink;
    QTimeZone m_zone{QByteArrayLiteral("Asia/Shanghai")};
    Part m_part = Part::Preamble;
    std::optional<Columns> m_columns;
    qsizetype m_width = 0;
    Side m_trades;
    Side m_refunds;
    std::optional<Stated> m_statedTrades;
    std::optional<Stated> m_statedRefunds;
    qsizetype m_lines = 0;
};

Status BillReader::take(const CsvRecord &record)
{
    const QString first = record.fields.constFirst().trimmed();
    const bool comment = first.startsWith(u'#');
    switch (m_part) {
    case Part::Preamble:
        if (comment && first.contains(DetailMarker) && !first.contains(EndMarker))
            m_part = Part::Header;
        return {};
    case Part::Header: {
        QStringList names;
        for (const QString &field : record.fields)
            names << field.trimmed();
        Result<Columns> columns = Columns::fromHeader(
            names, {QStringLiteral("支付宝交易号"), QStringLiteral("商户订单号"),
                    QStringLiteral("业务类型"), QStringLiteral("完成时间"),
                    QStringLiteral("订单金额（元）"), QStringLiteral("商家实收（元）"),
                    QStringLiteral("退款批次号/请求号"), QStringLiteral("服务费（元）")});
        if (!columns)
            return columns.error();
        m_columns = *columns;
        m_width = record.fields.size();
        m_part = Part::Detail;
        return {};
    }
    case Part::Detail:
        if (comment) {
            if (!first.contains(EndMarker))
                return refusal(
                    StatementCheck::Layout,
                    QStringLiteral("line %1: a comment inside the detail").arg(record.line));
            m_part = Part::Totals;
            return {};
        }
        return readRow(record);
    case Part::Totals: {
        const QString line = record.fields.join(u',').trimmed();
        if (line.contains(QStringLiteral("交易合计"))) {
            Result<Stated> stated = statedTotal(
                line, QStringLiteral("交易合计：(\\d+)笔，商家实收共(-?[0-9.]+)元"), m_cny);
            if (!stated)
                return stated.error();
            m_statedTrades = *stated;
        } else if (line.contains(QStringLiteral("退款合计"))) {
            Result<Stated> stated = statedTotal(
                line, QStringLiteral("退款合计：(\\d+)笔，商家实收退款共(-?[0-9.]+)元"), m_cny);
            if (!stated)
                return stated.error();
            m_statedRefunds = *stated;
        }
        return {};
    }
    }
    return {};
}

Status BillReader::readRow(const CsvRecord &record)
{
    if (Status wide = statementFields::sameWidth(record, m_width); !wide)
        return wide;
    QStringList fields;
    for (const QString &field : record.fields)
        fields << field.trimmed();
    Result<StatementLine> line = lineFrom(fields, QStringLiteral("line %1").arg(record.line));
    if (!line)
        return line.error();
    ++m_lines;
    return m_sink(std::move(*line));
}

Result<StatementLine> BillReader::lineFrom(const QStringList &fields, const QString &where)
{
    const auto value = [&](const char *name) {
        return m_columns->value(fields, QString::fromUtf8(name));
    };
    const QString type = value("业务类型");
    const bool trade = type == QStringLiteral("交易");
    if (!trade && type != QStringLiteral("退款"))
        return refusal(StatementCheck::Field,
                       QStringLiteral("%1 业务类型: \"%2\" is neither 交易 nor 退款")
                           .arg(where, type.left(20)));
    Result<qint64> ordered =
        signedYuan(value("订单金额（元）"), m_cny, where + QStringLiteral(" 订单金额"));
    Result<qint64> received =
        signedYuan(value("商家实收（元）"), m_cny, where + QStringLiteral(" 商家实收"));
    Result<qint64> fee =
        signedYuan(value("服务费（元）"), m_cny, where + QStringLiteral(" 服务费"));
    for (const Result<qint64> *read : {&ordered, &received, &fee})
        if (!*read)
            return read->error();
    Side &side = trade ? m_trades : m_refunds;
    side.count += 1;
    if (Status added = statementFields::addChecked(side.received, *received, where); !added)
        return added.error();
    StatementLine line;
    line.kind = trade ? LineKind::Payment : LineKind::Refund;
    const QString tradeNo = value("支付宝交易号");
    // A refund is keel's by the request number keel sent (out_request_no);
    // Alipay names it by the trade and that number together.
    line.reference = trade ? value("商户订单号") : value("退款批次号/请求号");
    line.channelReference = trade ? tradeNo : tradeNo + u'/' + value("退款批次号/请求号");
    // A refund's line names the trade it gave money back from by the trade's
    // own numbers: keel's order number, else Alipay's.
    if (!trade) {
        line.paymentReference = value("商户订单号");
        if (line.paymentReference.isEmpty())
            line.paymentReference = tradeNo;
    }
    line.amount = qAbs(*ordered);
    line.currency = m_cny.code;
    // What Alipay kept on a trade and gave back on a refund, whatever sign
    // the file writes it with.
    line.fee = trade ? qAbs(*fee) : -qAbs(*fee);
    if (line.amount == 0 || line.amount > m_cny.maxAmount || line.reference.isEmpty() ||
        tradeNo.isEmpty())
        return refusal(StatementCheck::Field,
                       QStringLiteral("%1: a %2 without an amount within one payment's, keel's "
                                      "number or Alipay's")
                           .arg(where, lineKindName(line.kind)));
    Result<QDateTime> at = statementFields::localTime(value("完成时间"), m_zone, where);
    if (!at)
        return at.error();
    line.occurredAt = *at;
    return line;
}

Result<qsizetype> BillReader::finish()
{
    if (m_part != Part::Totals || !m_statedTrades || !m_statedRefunds)
        return refusal(StatementCheck::Layout,
                       QStringLiteral("the detail does not end with its end marker and both "
                                      "totals lines (交易合计, 退款合计): truncated"));
    const auto tie = [](const char *what, const Side &detail, const Stated &stated) -> Status {
        if (detail.count == stated.count && detail.received == stated.received)
            return {};
        return refusal(StatementCheck::Totals,
                       QStringLiteral("the detail has %1 %2 row(s) receiving %3 minor units, the "
                                      "bill states %4 receiving %5")
                           .arg(detail.count)
                           .arg(QString::fromUtf8(what))
                           .arg(detail.received)
                           .arg(stated.count)
                           .arg(stated.received));
    };
    for (const Status &tied :
         {tie("交易", m_trades, *m_statedTrades), tie("退款", m_refunds, *m_statedRefunds)})
        if (!tied)
            return tied.error();
    return m_lines;
}

} // namespace

Result<qsizetype> readAlipayBill(const QByteArray &archive, const CurrencyTable &currencies,
                                 const LineSink &sink)
{
    const std::optional<Currency> cny = currencies.find(QStringLiteral("CNY"));
    if (!cny)
        return refusal(StatementCheck::Field, QStringLiteral("CNY is not a known currency"));
    Result<QString> text = detailText(archive);
    if (!text)
        return text.error();
    BillReader reader(*cny, sink);
    const Status read =
        forEachCsvRecord(*text, [&](const CsvRecord &record) { return reader.take(record); });
    if (!read)
        return read.error().code.isEmpty() ? refusal(StatementCheck::Layout, read.error().message)
                                           : read.error();
    return reader.finish();
}

} // namespace keel
