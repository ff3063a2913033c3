#include "devkit/sim/SimStatement.h"

#include "core/channel/SimulatedChannel.h"
#include "core/db/LibpqConnection.h"
#include "core/money/Currency.h"
#include "core/read/HistoryQuery.h"
#include "core/reference/CurrencyStore.h"

#include <QDateTime>
#include <QStringEncoder>
#include <QTimeZone>

#include <memory>

namespace keel {
namespace {

// The channel's own reference for an operation is the one the simulated
// channel answered with (SimulatedChannel::ownReference), so the same record
// always gives the same statement and keel knows the id. Its fee is its own sum in
// numeric, rounded half up: not keel's arithmetic, which fee_variance checks.
// A reverse gives a paid order back under the order's own id, and its fee
// with it. A refund names the charge it gave money back from, as a channel
// knows the payment it refunds (the simulator keeps only the refund's id).
constexpr char ApprovedOfDay[] =
    "SELECT CASE operation WHEN 'refund' THEN 'refund' WHEN 'reverse' THEN 'reversal' "
    "         ELSE 'payment' END, reference, "
    "       CASE operation WHEN 'reverse' THEN 'authorize' ELSE operation END, amount, currency, "
    "       to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), "
    "       CASE operation WHEN 'refund' THEN 0 "
    "            WHEN 'reverse' THEN -round(amount * $2::numeric / 1000000)::bigint "
    "            ELSE round(amount * $2::numeric / 1000000)::bigint END, "
    "       coalesce((SELECT c.public_id FROM keel.refunds r "
    "                 JOIN keel.charges c ON c.id = r.charge_id "
    "                 WHERE o.operation = 'refund' AND r.public_id = o.reference), '') "
    "FROM keel.sim_channel_operations o "
    "WHERE outcome = 'approved' AND currency IS NOT NULL "
    "  AND (operation IN ('capture', 'refund', 'reverse') OR (operation = 'authorize' AND sale)) "
    "  AND created_at >= ($1::date)::timestamp AT TIME ZONE $3 "
    "  AND created_at < ($1::date + 1)::timestamp AT TIME ZONE $3 "
    "ORDER BY created_at, reference, operation";

struct Line {
    QString type;
    QString reference;
    QString channelReference;
    qint64 amount = 0;
    QString currency;
    qint64 fee = 0;
    QString at;
    QString paymentReference = {}; // a refund's charge
};

QString signedUnits(qint64 amount, const Currency &currency)
{
    return HistoryQuery::formatAmount(amount, currency.exponent);
}

// One layout's lines and what closes the file.
class StatementWriter {
public:
    explicit StatementWriter(const CurrencyTable &currencies) : m_currencies(currencies) {}
    virtual ~StatementWriter() = default;

    static Line line(const PgRows &rows, int i)
    {
        const QString reference = rows.text(i, 1);
        return {rows.text(i, 0),
                reference,
                SimulatedChannel::ownReference(reference, rows.text(i, 2)),
                rows.toInt64(i, 3),
                rows.text(i, 4),
                rows.toInt64(i, 6),
                rows.text(i, 5),
                rows.text(i, 7)};
    }

    virtual void write(const Line &line) = 0;
    virtual QByteArray take() = 0;
    // Whether the layout has a row for a paid order given back on a reverse.
    virtual bool writesReversals() const { return false; }

protected:
    Currency currencyOf(const Line &line) const { return currencyNamed(line.currency); }
    Currency currencyNamed(const QString &code) const
    {
        return m_currencies.find(code).value_or(Currency{code, 2, 0});
    }

private:
    const CurrencyTable &m_currencies;
};

class KeelCsvWriter final : public StatementWriter {
public:
    using StatementWriter::StatementWriter;

    void write(const Line &line) override
    {
        const Currency currency = currencyOf(line);
        m_out += QStringList{line.reference, line.channelReference,
                             line.type,      formatMajorUnits(line.amount, currency),
                             line.currency,  signedUnits(line.fee, currency),
                             line.at,        line.paymentReference}
                     .join(u',')
                     .toUtf8() +
                 '\n';
    }
    QByteArray take() override { return std::move(m_out); }
    bool writesReversals() const override { return true; }

private:
    QByteArray m_out =
        "reference,channel_reference,type,amount,currency,fee,occurred_at,payment_reference\n";
};

// WeChat Pay's trade bill: every field after a backtick, times in Beijing,
// and its summary of counts and totals at the end.
class WechatPayWriter final : public StatementWriter {
public:
    WechatPayWriter(const CurrencyTable &currencies, QString currency)
        : StatementWriter(currencies), m_currency(std::move(currency))
    {}

    void write(const Line &line) override
    {
        if (line.currency != m_currency)
            return;
        const Currency currency = currencyOf(line);
        const bool payment = line.type == QLatin1String("payment");
        // A reverse of a paid order: WeChat Pay's refund of it, under the
        // order's numbers.
        const bool revoked = line.type == QLatin1String("reversal");
        const bool order = payment || revoked;
        const QString zero = formatMajorUnits(0, currency);
        const QString amount = formatMajorUnits(line.amount, currency);
        const QString beijing = QDateTime::fromString(line.at, Qt::ISODateWithMs)
                                    .toTimeZone(QTimeZone(QByteArrayLiteral("Asia/Shanghai")))
                                    .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        const QString refundId =
            revoked ? SimulatedChannel::ownReference(line.reference, QStringLiteral("reverse"))
                    : line.channelReference;
        const QStringList fields{beijing,
                                 QStringLiteral("wx2421b1c4370ec43b"),
                                 QStringLiteral("10000100"),
                                 {},
                                 {},
                                 order ? line.channelReference : QString(),
                                 order ? line.reference : line.paymentReference,
                                 QStringLiteral("oSimulatedPayer"),
                                 QStringLiteral("JSAPI"),
                                 payment   ? QStringLiteral("SUCCESS")
                                 : revoked ? QStringLiteral("REVOKED")
                                           : QStringLiteral("REFUND"),
                                 QStringLiteral("CMC"),
                                 line.currency,
                                 payment ? amount : zero,
                                 zero,
                                 payment ? QStringLiteral("0") : refundId,
                                 payment ? QStringLiteral("0") : line.reference,
                                 payment ? zero : amount,
                                 zero,
                                 payment ? QString() : QStringLiteral("ORIGINAL"),
                                 payment ? QString() : QStringLiteral("SUCCESS"),
                                 QStringLiteral("keel simulator"),
                                 {},
                                 signedUnits(line.fee, currency),
                                 {},
                                 payment ? amount : zero,
                                 payment ? zero : amount,
                                 {}};
        m_out += ticked(fields);
        ++m_count;
        (payment ? m_ordered : m_refunded) += line.amount;
        m_fees += line.fee;
    }

    bool writesReversals() const override { return true; }

    QByteArray take() override
    {
        const Currency currency = currencyNamed(m_currency);
        m_out +=
            QStringLiteral("总交易单数,应结订单总金额,退款总金额,充值券退款总金额,手续费总金额,"
                           "订单总金额,申请退款总金额\r\n")
                .toUtf8();
        m_out += ticked({QString::number(m_count), formatMajorUnits(m_ordered, currency),
                         formatMajorUnits(m_refunded, currency), formatMajorUnits(0, currency),
                         signedUnits(m_fees, currency), formatMajorUnits(m_ordered, currency),
                         formatMajorUnits(m_refunded, currency)});
        return std::move(m_out);
    }

private:
    static QByteArray ticked(const QStringList &fields)
    {
        QStringList out;
        for (const QString &field : fields)
            out << u'`' + field;
        return out.join(u',').toUtf8() + "\r\n";
    }

    QString m_currency;
    QByteArray m_out =
        QStringLiteral("交易时间,公众账号ID,商户号,特约商户号,设备号,微信订单号,商户订单号,"
                       "用户标识,交易类型,交易状态,付款银行,货币种类,应结订单金额,"
                       "代金券金额,微信退款单号,商户退款单号,退款金额,充值券退款金额,"
                       "退款类型,退款状态,商品名称,商户数据包,手续费,费率,订单金额,"
                       "申请退款金额,费率备注\r\n")
            .toUtf8();
    qint64 m_count = 0;
    qint64 m_ordered = 0;
    qint64 m_refunded = 0;
    qint64 m_fees = 0;
};

// Stripe's itemized payout reconciliation report, with keel's reference in
// the payment's or the refund's metadata and a refund's gross negative.
class StripeReportWriter final : public StatementWriter {
public:
    using StatementWriter::StatementWriter;

    void write(const Line &line) override
    {
        const Currency currency = currencyOf(line);
        const bool payment = line.type == QLatin1String("payment");
        const qint64 gross = payment ? line.amount : -line.amount;
        const QString created = QDateTime::fromString(line.at, Qt::ISODateWithMs)
                                    .toUTC()
                                    .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        m_out += QStringList{QStringLiteral("po_simulated"),
                             QStringLiteral("txn_") + line.channelReference,
                             created,
                             line.currency.toLower(),
                             signedUnits(gross, currency),
                             signedUnits(line.fee, currency),
                             signedUnits(gross - line.fee, currency),
                             payment ? QStringLiteral("charge") : QStringLiteral("refund"),
                             line.channelReference,
                             payment ? line.reference : line.paymentReference,
                             payment ? QString() : line.reference}
                     .join(u',')
                     .toUtf8() +
                 '\n';
    }
    QByteArray take() override { return std::move(m_out); }

private:
    QByteArray m_out = "automatic_payout_id,balance_transaction_id,created_utc,currency,gross,fee,"
                       "net,reporting_category,source_id,payment_metadata[keel_reference],"
                       "refund_metadata[keel_reference]\n";
};

// A ZIP of stored entries whose names are GBK bytes without the UTF-8 flag,
// as Alipay packs its bills.
class StoredZip final {
public:
    void add(const QByteArray &name, const QByteArray &data)
    {
        const quint32 crc = crc32(data);
        m_central += header(0x02014b50, name, data.size(), crc, true);
        m_central += name;
        m_out += header(0x04034b50, name, data.size(), crc, false);
        m_out += name + data;
    }

    QByteArray take()
    {
        QByteArray end;
        put32(end, 0x06054b50);
        put16(end, 0);
        put16(end, 0);
        put16(end, m_entries);
        put16(end, m_entries);
        put32(end, quint32(m_central.size()));
        put32(end, quint32(m_out.size()));
        put16(end, 0);
        return m_out + m_central + end;
    }

private:
    static void put16(QByteArray &out, quint32 value)
    {
        out.append(char(value & 0xff)).append(char((value >> 8) & 0xff));
    }
    static void put32(QByteArray &out, quint32 value)
    {
        put16(out, value & 0xffff);
        put16(out, value >> 16);
    }
    static quint32 crc32(const QByteArray &data)
    {
        quint32 crc = 0xffffffffu;
        for (const char byte : data) {
            crc ^= quint8(byte);
            for (int bit = 0; bit < 8; ++bit)
                crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
        }
        return ~crc;
    }
    // A local (central == false) or central directory header up to its name.
    QByteArray header(quint32 signature, const QByteArray &name, qsizetype size, quint32 crc,
                      bool central)
    {
        constexpr quint32 DosTime = 0;                         // 00:00:00
        constexpr quint32 DosDate = (46 << 9) | (12 << 5) | 1; // 2026-12-01
        QByteArray out;
        put32(out, signature);
        if (central)
            put16(out, 20); // made by
        put16(out, 20);     // needed
        put16(out, 0);      // no flags: the name is not UTF-8
        put16(out, 0);      // stored
        put16(out, DosTime);
        put16(out, DosDate);
        put32(out, crc);
        put32(out, quint32(size));
        put32(out, quint32(size));
        put16(out, quint32(name.size()));
        put16(out, 0); // extra
        if (central) {
            put16(out, 0); // comment
            put16(out, 0); // disk
            put16(out, 0); // internal attributes
            put32(out, 0); // external attributes
            put32(out, quint32(m_out.size()));
            ++m_entries;
        }
        return out;
    }

    QByteArray m_out;
    QByteArray m_central;
    quint32 m_entries = 0;
};

// Alipay's trade bill (业务账单): a ZIP of GBK files, the detail between its
// markers with Alipay's totals after it, trades and refunds in CNY, times in
// Beijing, 服务费 negative on a trade and positive on a refund.
class AlipayWriter final : public StatementWriter {
public:
    AlipayWriter(const CurrencyTable &currencies, const QDate &day)
        : StatementWriter(currencies), m_day(day)
    {}

    void write(const Line &line) override
    {
        if (line.currency != QLatin1String("CNY"))
            return;
        const Currency cny = currencyOf(line);
        const bool trade = line.type == QLatin1String("payment");
        const QString at = QDateTime::fromString(line.at, Qt::ISODateWithMs)
                               .toTimeZone(QTimeZone(QByteArrayLiteral("Asia/Shanghai")))
                               .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        const qint64 signedAmount = trade ? line.amount : -line.amount;
        const QString amount = signedUnits(signedAmount, cny);
        const QString zero = formatMajorUnits(0, cny);
        // Alipay writes 服务费 from the merchant's side: what it kept on a
        // trade negative, what a refund gave back positive.
        const QString fee = signedUnits(-line.fee, cny);
        m_rows << QStringList{
            line.channelReference + u'\t',
            (trade ? line.reference : line.paymentReference) + u'\t',
            trade ? QStringLiteral("交易") : QStringLiteral("退款"),
            QStringLiteral("keel 模拟"),
            at,
            at,
            {},
            {},
            {},
            {},
            QStringLiteral("si***@example.com"),
            amount,
            amount,
            zero,
            zero,
            zero,
            zero,
            zero,
            {},
            zero,
            zero,
            trade ? QString() : line.reference,
            fee,
            zero,
            {}}.join(u',');
        (trade ? m_trades : m_refunds) += 1;
        (trade ? m_received : m_refunded) += signedAmount;
    }

    QByteArray take() override
    {
        const Currency cny = currencyNamed(QStringLiteral("CNY"));
        const QString date = m_day.toString(QStringLiteral("yyyy年MM月dd日"));
        QStringList text{
            QStringLiteral("#支付宝业务明细查询"),
            QStringLiteral("#账号：[%1]").arg(QLatin1String(Partner)),
            QStringLiteral("#起始日期：[%1 00:00:00]   终止日期：[%2 00:00:00]")
                .arg(date, m_day.addDays(1).toString(QStringLiteral("yyyy年MM月dd日"))),
            QStringLiteral("#-----------------------------------------业务明细列表"
                           "----------------------------------------"),
            QStringLiteral("支付宝交易号,商户订单号,业务类型,商品名称,创建时间,完成时间,"
                           "门店编号,门店名称,操作员,终端号,对方账户,订单金额（元）,"
                           "商家实收（元）,支付宝红包（元）,集分宝（元）,支付宝优惠（元）,"
                           "商家优惠（元）,券核销金额（元）,券名称,商家红包消费金额（元）,"
                           "卡消费金额（元）,退款批次号/请求号,服务费（元）,分润（元）,"
                           "备注")};
        text += m_rows;
        text << QStringLiteral("#-----------------------------------------业务明细列表结束"
                               "------------------------------------")
             << QStringLiteral("#交易合计：%1笔，商家实收共%2元，商家优惠共%3元")
                    .arg(m_trades)
                    .arg(signedUnits(m_received, cny), formatMajorUnits(0, cny))
             << QStringLiteral("#退款合计：%1笔，商家实收退款共%2元，商家优惠退款共%3元")
                    .arg(m_refunds)
                    .arg(signedUnits(m_refunded, cny), formatMajorUnits(0, cny));
        QStringEncoder encoder("GBK");
        const auto gbk = [&encoder](const QString &unicode) -> QByteArray {
            return encoder.encode(unicode);
        };
        const QByteArray prefix =
            QByteArray(Partner) + '_' + m_day.toString(QStringLiteral("yyyyMMdd")).toLatin1() + '_';
        StoredZip zip;
        zip.add(prefix + gbk(QStringLiteral("业务明细.csv")),
                gbk(text.join(QStringLiteral("\r\n")) + QStringLiteral("\r\n")));
        zip.add(prefix + gbk(QStringLiteral("业务明细(汇总).csv")),
                gbk(QStringLiteral("#支付宝业务汇总查询\r\n")));
        return zip.take();
    }

private:
    static constexpr char Partner[] = "20881234567890120156";
    QDate m_day;
    QStringList m_rows;
    qint64 m_trades = 0;
    qint64 m_refunds = 0;
    qint64 m_received = 0;
    qint64 m_refunded = 0;
};

std::unique_ptr<StatementWriter> writerFor(const StatementLayout &layout,
                                           const CurrencyTable &currencies, const QDate &day)
{
    switch (layout.format) {
    case StatementFormat::Csv:
        return std::make_unique<KeelCsvWriter>(currencies);
    case StatementFormat::WechatPay:
        return std::make_unique<WechatPayWriter>(currencies, layout.currency);
    case StatementFormat::Stripe:
        return std::make_unique<StripeReportWriter>(currencies);
    case StatementFormat::Alipay:
        return std::make_unique<AlipayWriter>(currencies, day);
    }
    return nullptr;
}

} // namespace

Result<QByteArray> simulatorStatement(LibpqConnection &session, const QDate &day, qint64 feeRatePpm,
                                      const StatementFaults &faults, const StatementLayout &layout)
{
    Result<CurrencyTable> currencies = loadCurrencies(session);
    if (!currencies)
        return currencies.error();
    std::unique_ptr<StatementWriter> writer = writerFor(layout, *currencies, day);
    if (!writer)
        return fieldError(QStringLiteral("format"), QStringLiteral("unsupported"),
                          QStringLiteral("the simulator does not write %1 statements")
                              .arg(statementFormatName(layout.format)));
    Result<PgRows> rows =
        session.query(ApprovedOfDay, {day.toString(Qt::ISODate).toLatin1(),
                                      QByteArray::number(feeRatePpm), layout.dayZone.toUtf8()});
    if (!rows)
        return rows.error();
    StatementFaults left = faults;
    // Each line carries one fault at most, so that each is found as itself.
    for (int i = 0; i < rows->size(); ++i) {
        Line line = StatementWriter::line(*rows, i);
        if (line.type == QLatin1String("reversal") && !writer->writesReversals())
            return fieldError(QStringLiteral("format"), QStringLiteral("unsupported"),
                              QStringLiteral("%1 has no row for %2, a paid order given back")
                                  .arg(statementFormatName(layout.format), line.reference));
        if (left.drop > 0) {
            --left.drop;
            continue;
        }
        bool faulted = true;
        if (left.changeAmount > 0) {
            --left.changeAmount;
            line.amount += 1;
        } else if (left.changeFee > 0 && line.type == QLatin1String("payment")) {
            --left.changeFee;
            line.fee += 1;
        } else {
            faulted = false;
        }
        writer->write(line);
        if (faulted)
            continue;
        if (left.duplicate > 0) {
            --left.duplicate;
            line.channelReference += QStringLiteral("_again");
            writer->write(line);
        } else if (left.invent > 0) {
            --left.invent;
            writer->write({QStringLiteral("payment"),
                           QStringLiteral("ch_neverAsked%1").arg(i, 10, 10, QLatin1Char('0')),
                           QStringLiteral("sim_invented_%1").arg(i), line.amount, line.currency,
                           line.fee, line.at});
        }
    }
    return writer->take();
}

} // namespace keel
