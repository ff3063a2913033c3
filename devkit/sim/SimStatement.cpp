#include "devkit/sim/SimStatement.h"

#include "core/db/LibpqConnection.h"
#include "core/money/Currency.h"
#include "core/reference/CurrencyStore.h"

#include <QDateTime>
#include <QTimeZone>

#include <memory>

namespace keel {
namespace {

// The channel's own reference for an operation is derived from keel's, so
// the same record always gives the same statement. Its fee is its own sum in
// numeric, rounded half up: not keel's arithmetic, which fee_variance checks.
constexpr char ApprovedOfDay[] =
    "SELECT CASE operation WHEN 'refund' THEN 'refund' ELSE 'payment' END, reference, "
    "       'sim_' || left(md5(reference || '/' || operation), 24), amount, currency, "
    "       to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), "
    "       CASE WHEN operation = 'refund' THEN 0 "
    "            ELSE round(amount * $2::numeric / 1000000)::bigint END "
    "FROM keel.sim_channel_operations "
    "WHERE outcome = 'approved' AND currency IS NOT NULL "
    "  AND (operation IN ('capture', 'refund') OR (operation = 'authorize' AND sale)) "
    "  AND created_at >= ($1::date)::timestamp AT TIME ZONE 'UTC' "
    "  AND created_at < ($1::date + 1)::timestamp AT TIME ZONE 'UTC' "
    "ORDER BY created_at, reference, operation";

struct Line {
    QString type;
    QString reference;
    QString channelReference;
    qint64 amount = 0;
    QString currency;
    qint64 fee = 0;
    QString at;
};

QString signedMajorUnits(qint64 amount, const Currency &currency)
{
    return (amount < 0 ? QStringLiteral("-") : QString()) +
           formatMajorUnits(qAbs(amount), currency);
}

// One layout's lines and what closes the file.
class StatementWriter {
public:
    explicit StatementWriter(const CurrencyTable &currencies) : m_currencies(currencies) {}
    virtual ~StatementWriter() = default;

    static Line line(const PgRows &rows, int i)
    {
        return {rows.text(i, 0), rows.text(i, 1),    rows.text(i, 2), rows.toInt64(i, 3),
                rows.text(i, 4), rows.toInt64(i, 6), rows.text(i, 5)};
    }

    virtual void write(const Line &line) = 0;
    virtual QByteArray take() = 0;

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
                             line.currency,  signedMajorUnits(line.fee, currency),
                             line.at}
                     .join(u',')
                     .toUtf8() +
                 '\n';
    }
    QByteArray take() override { return std::move(m_out); }

private:
    QByteArray m_out = "reference,channel_reference,type,amount,currency,fee,occurred_at\n";
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
        const QString zero = formatMajorUnits(0, currency);
        const QString amount = formatMajorUnits(line.amount, currency);
        const QString beijing = QDateTime::fromString(line.at, Qt::ISODateWithMs)
                                    .toTimeZone(QTimeZone(QByteArrayLiteral("Asia/Shanghai")))
                                    .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        const QStringList fields{beijing,
                                 QStringLiteral("wx2421b1c4370ec43b"),
                                 QStringLiteral("10000100"),
                                 {},
                                 {},
                                 payment ? line.channelReference : QString(),
                                 payment ? line.reference : QString(),
                                 QStringLiteral("oSimulatedPayer"),
                                 QStringLiteral("JSAPI"),
                                 payment ? QStringLiteral("SUCCESS") : QStringLiteral("REFUND"),
                                 QStringLiteral("CMC"),
                                 line.currency,
                                 payment ? amount : zero,
                                 zero,
                                 payment ? QStringLiteral("0") : line.channelReference,
                                 payment ? QStringLiteral("0") : line.reference,
                                 payment ? zero : amount,
                                 zero,
                                 payment ? QString() : QStringLiteral("ORIGINAL"),
                                 payment ? QString() : QStringLiteral("SUCCESS"),
                                 QStringLiteral("keel simulator"),
                                 {},
                                 signedMajorUnits(line.fee, currency),
                                 {},
                                 payment ? amount : zero,
                                 payment ? zero : amount,
                                 {}};
        m_out += ticked(fields);
        ++m_count;
        (payment ? m_ordered : m_refunded) += line.amount;
        m_fees += line.fee;
    }

    QByteArray take() override
    {
        const Currency currency = currencyNamed(m_currency);
        m_out +=
            QStringLiteral("总交易单数,应结订单总金额,退款总金额,充值券退款总金额,手续费总金额,"
                           "订单总金额,申请退款总金额\r\n")
                .toUtf8();
        m_out += ticked({QString::number(m_count), formatMajorUnits(m_ordered, currency),
                         formatMajorUnits(m_refunded, currency), formatMajorUnits(0, currency),
                         signedMajorUnits(m_fees, currency), formatMajorUnits(m_ordered, currency),
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
                             signedMajorUnits(gross, currency),
                             signedMajorUnits(line.fee, currency),
                             signedMajorUnits(gross - line.fee, currency),
                             payment ? QStringLiteral("charge") : QStringLiteral("refund"),
                             line.channelReference,
                             payment ? line.reference : QString(),
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

std::unique_ptr<StatementWriter> writerFor(const StatementLayout &layout,
                                           const CurrencyTable &currencies)
{
    switch (layout.format) {
    case StatementFormat::Csv:
        return std::make_unique<KeelCsvWriter>(currencies);
    case StatementFormat::WechatPay:
        return std::make_unique<WechatPayWriter>(currencies, layout.currency);
    case StatementFormat::Stripe:
        return std::make_unique<StripeReportWriter>(currencies);
    case StatementFormat::Alipay:
        break;
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
    std::unique_ptr<StatementWriter> writer = writerFor(layout, *currencies);
    if (!writer)
        return fieldError(QStringLiteral("format"), QStringLiteral("unsupported"),
                          QStringLiteral("the simulator does not write %1 statements")
                              .arg(statementFormatName(layout.format)));
    Result<PgRows> rows = session.query(
        ApprovedOfDay, {day.toString(Qt::ISODate).toLatin1(), QByteArray::number(feeRatePpm)});
    if (!rows)
        return rows.error();
    StatementFaults left = faults;
    // Each line carries one fault at most, so that each is found as itself.
    for (int i = 0; i < rows->size(); ++i) {
        Line line = StatementWriter::line(*rows, i);
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
