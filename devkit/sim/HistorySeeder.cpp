#include "devkit/sim/HistorySeeder.h"

#include "core/db/LibpqConnection.h"
#include "core/ledger/Ledger.h"
#include "core/merchant/MerchantStore.h"

#include <QDateTime>
#include <QRandomGenerator>

namespace keel {
namespace {

constexpr qint64 Chunk = 50000;
const char *const Currencies[] = {"USD", "CNY", "EUR", "JPY"};

// Moves one staged chunk into keel's tables: the charges, their state and
// events, and balanced postings for what was captured or refunded.
constexpr char LoadStaged[] =
    "INSERT INTO keel.charges (public_id, merchant_id, out_trade_no, amount, currency, "
    "source, "
    "  amount_captured, amount_refunded, request_hash, created_at) "
    "SELECT public_id, merchant_id, out_trade_no, amount, currency, 'tok_visa', "
    "  CASE WHEN state IN ('Captured', 'Refunded') THEN amount ELSE 0 END, "
    "  CASE WHEN state = 'Refunded' THEN amount ELSE 0 END, sha256(convert_to(public_id, "
    "'UTF8')), "
    "  created_at FROM seed_staging;"
    "INSERT INTO keel.payment_state (charge_id, state, version, updated_at) "
    "SELECT c.id, s.state, 2, s.created_at FROM seed_staging s JOIN keel.charges c USING "
    "(public_id);"
    "INSERT INTO keel.payment_events (charge_id, from_state, to_state, event_type, "
    "created_at) "
    "SELECT c.id, e.from_state, e.to_state, e.event_type, s.created_at "
    "FROM seed_staging s JOIN keel.charges c USING (public_id) CROSS JOIN LATERAL (VALUES "
    "  ('Created', 'Authorizing', 'submit', true), "
    "  ('Authorizing', CASE s.state WHEN 'Failed' THEN 'Failed' ELSE 'Authorized' END, "
    "     CASE s.state WHEN 'Failed' THEN 'auth_fail' ELSE 'auth_ok' END, true), "
    "  ('Authorized', 'Capturing', 'capture', s.state IN ('Captured', 'Refunded')), "
    "  ('Capturing', 'Captured', 'capture_ok', s.state IN ('Captured', 'Refunded')), "
    "  ('Captured', 'Refunding', 'refund', s.state = 'Refunded'), "
    "  ('Refunding', 'Refunded', 'refund_ok', s.state = 'Refunded')) "
    "  AS e(from_state, to_state, event_type, happened) WHERE e.happened;"
    "WITH posted AS (INSERT INTO keel.ledger_transactions (kind, charge_id, created_at) "
    "  SELECT k.kind, c.id, s.created_at FROM seed_staging s JOIN keel.charges c USING "
    "(public_id) "
    "  CROSS JOIN LATERAL (VALUES ('capture'), ('refund')) AS k(kind) "
    "  WHERE s.state = 'Refunded' OR (s.state = 'Captured' AND k.kind = 'capture') "
    "  RETURNING id, charge_id, kind) "
    "INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount) "
    "SELECT p.id, a.id, c.currency, CASE WHEN (a.kind = 'asset') = (p.kind = 'capture') "
    "  THEN c.amount ELSE -c.amount END "
    "FROM posted p JOIN keel.charges c ON c.id = p.charge_id "
    "JOIN keel.ledger_accounts a ON a.currency = c.currency AND (a.code = "
    "'channel_clearing:' || "
    "  c.currency OR a.code = 'merchant_payable:' || c.merchant_id || ':' || c.currency);";

// Seed merchants (and their ledger accounts, committed before any posting).
Result<QList<qint64>> seedMerchants(LibpqConnection &session, int wanted)
{
    QList<qint64> merchants;
    Result<PgRows> existing = session.query(
        "SELECT id FROM keel.merchants WHERE name LIKE 'Seed Merchant %' ORDER BY id LIMIT $1",
        {QByteArray::number(wanted)});
    if (!existing)
        return existing.error();
    for (int i = 0; i < existing->size(); ++i)
        merchants << existing->toInt64(i, 0);
    MerchantStore store(session);
    while (merchants.size() < wanted) {
        Result<IssuedMerchant> made =
            store.create(QStringLiteral("Seed Merchant %1").arg(merchants.size() + 1), {});
        if (!made)
            return made.error();
        merchants << made->merchant.id;
    }
    Ledger ledger(session);
    for (const qint64 merchant : std::as_const(merchants))
        for (const char *currency : Currencies)
            if (Status ready = ledger.prepareAccounts(merchant, QLatin1String(currency)); !ready)
                return ready.error();
    return merchants;
}

// One chunk of charges as COPY text rows for seed_staging.
class ChunkWriter {
public:
    ChunkWriter(const SeedOptions &options, QList<qint64> merchants)
        : m_options(options), m_merchants(std::move(merchants)),
          m_now(QDateTime::currentMSecsSinceEpoch()),
          m_spanMs(qint64(options.days) * 24 * 3600 * 1000),
          m_run(QByteArray::number(QDateTime::currentSecsSinceEpoch(), 36))
    {}

    QByteArray rows(qint64 first, qint64 count)
    {
        QByteArray rows;
        rows.reserve(count * 110);
        for (qint64 n = first; n < first + count; ++n) {
            const int roll = m_random.bounded(100);
            const char *state = roll < 80   ? "Captured"
                                : roll < 88 ? "Failed"
                                : roll < 94 ? "Authorized"
                                            : "Refunded";
            const char *currency = Currencies[m_random.bounded(4)];
            const qint64 amount = qstrcmp(currency, "JPY") == 0 ? 100 + m_random.bounded(50000)
                                                                : 500 + m_random.bounded(500000);
            // Oldest first, so created_at grows with n as in real life.
            const qint64 at =
                m_now - m_spanMs + m_spanMs * n / std::max<qint64>(1, m_options.charges);
            rows +=
                "ch_seed" + m_run + QByteArray::number(n) + '\t' +
                QByteArray::number(m_merchants.at(int(n % m_merchants.size()))) + '\t' + "SEED-" +
                m_run + '-' + QByteArray::number(n) + '\t' + QByteArray::number(amount) + '\t' +
                currency + '\t' + state + '\t' +
                QDateTime::fromMSecsSinceEpoch(at, Qt::UTC).toString(Qt::ISODateWithMs).toLatin1() +
                '\n';
        }
        return rows;
    }

private:
    const SeedOptions &m_options;
    QList<qint64> m_merchants;
    QRandomGenerator m_random{20261129};
    qint64 m_now;
    qint64 m_spanMs;
    QByteArray m_run;
};

} // namespace

Result<qint64> HistorySeeder::seed(LibpqConnection &session, const SeedOptions &options,
                                   const std::function<void(qint64)> &progress)
{
    Result<QList<qint64>> merchants = seedMerchants(session, options.merchants);
    if (!merchants)
        return merchants.error();
    if (Status made = session.exec(
            "CREATE TEMP TABLE IF NOT EXISTS seed_staging (public_id text, merchant_id bigint, "
            "out_trade_no text, amount bigint, currency char(3), state text, created_at "
            "timestamptz)");
        !made)
        return made.error();
    ChunkWriter writer(options, *merchants);
    qint64 done = 0;
    while (done < options.charges) {
        const qint64 count = std::min(Chunk, options.charges - done);
        const QByteArray rows = writer.rows(done, count);
        if (Status begun = session.exec("BEGIN; TRUNCATE seed_staging"); !begun)
            return begun.error();
        Status loaded = session.copyIn("COPY seed_staging FROM STDIN", rows);
        if (loaded)
            loaded = session.exec(QByteArray(LoadStaged) + "COMMIT");
        if (!loaded) {
            (void)session.exec("ROLLBACK");
            return loaded.error();
        }
        done += count;
        if (progress)
            progress(done);
    }
    return done;
}

} // namespace keel
