#include "devkit/sim/SimStatement.h"

#include "core/db/LibpqConnection.h"
#include "core/money/Currency.h"
#include "core/reference/CurrencyStore.h"

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

class StatementWriter final {
public:
    explicit StatementWriter(const CurrencyTable &currencies) : m_currencies(currencies) {}

    static Line line(const PgRows &rows, int i)
    {
        return {rows.text(i, 0), rows.text(i, 1),    rows.text(i, 2), rows.toInt64(i, 3),
                rows.text(i, 4), rows.toInt64(i, 6), rows.text(i, 5)};
    }

    void write(const Line &line)
    {
        const std::optional<Currency> currency = m_currencies.find(line.currency);
        const Currency written = currency.value_or(Currency{line.currency, 2, 0});
        m_out += QStringList{line.reference,
                             line.channelReference,
                             line.type,
                             formatMajorUnits(line.amount, written),
                             line.currency,
                             (line.fee < 0 ? QStringLiteral("-") : QString()) +
                                 formatMajorUnits(qAbs(line.fee), written),
                             line.at}
                     .join(u',')
                     .toUtf8() +
                 '\n';
    }

    QByteArray take() { return std::move(m_out); }

private:
    const CurrencyTable &m_currencies;
    QByteArray m_out = "reference,channel_reference,type,amount,currency,fee,occurred_at\n";
};

} // namespace

Result<QByteArray> simulatorStatement(LibpqConnection &session, const QDate &day, qint64 feeRatePpm,
                                      const StatementFaults &faults)
{
    Result<CurrencyTable> currencies = loadCurrencies(session);
    if (!currencies)
        return currencies.error();
    Result<PgRows> rows = session.query(
        ApprovedOfDay, {day.toString(Qt::ISODate).toLatin1(), QByteArray::number(feeRatePpm)});
    if (!rows)
        return rows.error();
    StatementWriter writer(*currencies);
    StatementFaults left = faults;
    // Each line carries one fault at most, so that each is found as itself.
    for (int i = 0; i < rows->size(); ++i) {
        Line line = writer.line(*rows, i);
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
        writer.write(line);
        if (faulted)
            continue;
        if (left.duplicate > 0) {
            --left.duplicate;
            line.channelReference += QStringLiteral("_again");
            writer.write(line);
        } else if (left.invent > 0) {
            --left.invent;
            writer.write({QStringLiteral("payment"),
                          QStringLiteral("ch_neverAsked%1").arg(i, 10, 10, QLatin1Char('0')),
                          QStringLiteral("sim_invented_%1").arg(i), line.amount, line.currency,
                          line.fee, line.at});
        }
    }
    return writer.take();
}

} // namespace keel
