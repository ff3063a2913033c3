#include "core/dev/HistorySeeder.h"

#include "core/db/PgConnection.h"
#include "core/ledger/Ledger.h"
#include "core/merchant/MerchantStore.h"

#include <QDateTime>
#include <QRandomGenerator>

namespace keel {
namespace {

constexpr qint64 Chunk = 50000;
const char *const Currencies[] = {"USD", "CNY", "EUR", "JPY"};

} // namespace

Result<qint64> HistorySeeder::seed(PgConnection &session, const SeedOptions &options,
                                   const std::function<void(qint64)> &progress)
{
    // Merchants (and their ledger accounts, committed before any posting).
    QList<qint64> merchants;
    Result<PgRows> existing = session.query(
        "SELECT id FROM keel.merchants WHERE name LIKE 'Seed Merchant %' ORDER BY id LIMIT $1",
        {QByteArray::number(options.merchants)});
    if (!existing)
        return existing.error();
    for (int i = 0; i < existing->size(); ++i)
        merchants << existing->toInt64(i, 0);
    MerchantStore store(session);
    while (merchants.size() < options.merchants) {
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

    if (Status made = session.exec(
            "CREATE TEMP TABLE IF NOT EXISTS seed_staging (public_id text, merchant_id bigint, "
            "out_trade_no text, amount bigint, currency char(3), state text, created_at "
            "timestamptz)");
        !made)
        return made.error();

    QRandomGenerator random(20261129);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const qint64 spanMs = qint64(options.days) * 24 * 3600 * 1000;
    const QByteArray run = QByteArray::number(QDateTime::currentSecsSinceEpoch(), 36);
    qint64 done = 0;
    while (done < options.charges) {
        const qint64 count = std::min(Chunk, options.charges - done);
        QByteArray rows;
        rows.reserve(count * 110);
        for (qint64 i = 0; i < count; ++i) {
            const qint64 n = done + i;
            const int roll = random.bounded(100);
            const char *state = roll < 80   ? "Captured"
                                : roll < 88 ? "Failed"
                                : roll < 94 ? "Authorized"
                                            : "Refunded";
            const char *currency = Currencies[random.bounded(4)];
            const qint64 amount = qstrcmp(currency, "JPY") == 0 ? 100 + random.bounded(50000)
                                                                : 500 + random.bounded(500000);
            // Oldest first, so created_at grows with n as in real life.
            const qint64 at = now - spanMs + spanMs * n / std::max<qint64>(1, options.charges);
            rows +=
                "ch_seed" + run + QByteArray::number(n) + '\t' +
                QByteArray::number(merchants.at(int(n % merchants.size()))) + '\t' + "SEED-" + run +
                '-' + QByteArray::number(n) + '\t' + QByteArray::number(amount) + '\t' + currency +
                '\t' + state + '\t' +
                QDateTime::fromMSecsSinceEpoch(at, Qt::UTC).toString(Qt::ISODateWithMs).toLatin1() +
                '\n';
        }
        if (Status begun = session.exec("BEGIN; TRUNCATE seed_staging"); !begun)
            return begun.error();
        if (Status copied = session.copyIn("COPY seed_staging FROM STDIN", rows); !copied) {
            (void)session.exec("ROLLBACK");
            return copied.error();
        }
        Status loaded = session.exec(
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
            "  c.currency OR a.code = 'merchant_payable:' || c.merchant_id || ':' || c.currency);"
            "COMMIT");
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
