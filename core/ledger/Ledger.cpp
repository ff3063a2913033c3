#include "core/ledger/Ledger.h"

#include "core/db/PgConnection.h"

#include <QHash>
#include <QMutex>

namespace keel {
namespace {

// Account ids never change once created, so every thread may share them.
QMutex s_accountsLock;
QHash<QString, qint64> s_accounts;

} // namespace

Result<qint64> Ledger::accountId(const QString &code, const QString &kind, const QString &currency,
                                 qint64 merchantId)
{
    const QString cacheKey = m_session.identity() + u'|' + code;
    {
        QMutexLocker locker(&s_accountsLock);
        if (auto it = s_accounts.constFind(cacheKey); it != s_accounts.constEnd())
            return *it;
    }
    if (m_session.pipelining())
        return makeError(
            ErrorKind::Failed,
            QStringLiteral("ledger account %1 was not prepared before the transaction").arg(code));
    // Only an id that is committed may be shared: one created inside a
    // transaction that later rolls back would poison every later posting.
    const bool committedAtOnce = !m_session.inTransaction();
    for (int attempt = 0; attempt < 2; ++attempt) {
        Result<PgRows> found =
            m_session.query("SELECT id FROM keel.ledger_accounts WHERE code = $1", {code.toUtf8()});
        if (!found)
            return found.error();
        qint64 id = found->size() == 1 ? found->toInt64(0, 0) : 0;
        if (id == 0) {
            // A concurrent creator makes this return nothing; the retry's new
            // statement then sees its committed row.
            Result<PgRows> made = m_session.query(
                "INSERT INTO keel.ledger_accounts (code, kind, currency, merchant_id) "
                "VALUES ($1, $2, $3, $4) ON CONFLICT (code) DO NOTHING RETURNING id",
                {code.toUtf8(), kind.toUtf8(), currency.toUtf8(),
                 merchantId > 0 ? QByteArray::number(merchantId) : QByteArray()});
            if (!made)
                return made.error();
            if (made->size() == 1)
                id = made->toInt64(0, 0);
            else
                continue;
        }
        if (committedAtOnce || found->size() == 1) {
            QMutexLocker locker(&s_accountsLock);
            s_accounts.insert(cacheKey, id);
        }
        return id;
    }
    return makeError(ErrorKind::Failed,
                     QStringLiteral("ledger account %1 could not be found or created").arg(code));
}

Result<std::pair<qint64, qint64>> Ledger::clearingAndPayable(qint64 merchantId,
                                                             const QString &currency)
{
    Result<qint64> clearing = accountId(QStringLiteral("channel_clearing:") + currency,
                                        QStringLiteral("asset"), currency, 0);
    if (!clearing)
        return clearing.error();
    Result<qint64> payable =
        accountId(QStringLiteral("merchant_payable:%1:%2").arg(merchantId).arg(currency),
                  QStringLiteral("liability"), currency, merchantId);
    if (!payable)
        return payable.error();
    return std::pair<qint64, qint64>{*clearing, *payable};
}

Status Ledger::prepareAccounts(qint64 merchantId, const QString &currency)
{
    Result<std::pair<qint64, qint64>> accounts = clearingAndPayable(merchantId, currency);
    if (!accounts)
        return accounts.error();
    return {};
}

Result<qint64> Ledger::post(const QString &kind, qint64 chargeId, qint64 refundId,
                            qint64 debitAccount, qint64 creditAccount, const QString &currency,
                            qint64 amount)
{
    Result<PgRows> rows = m_session.query(
        "WITH t AS (INSERT INTO keel.ledger_transactions (kind, charge_id, refund_id) "
        "  VALUES ($1, $2, $3) RETURNING id) "
        "INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount) "
        "SELECT t.id, $4::bigint, $6::char(3), $7::bigint FROM t UNION ALL "
        "SELECT t.id, $5::bigint, $6::char(3), -$7::bigint FROM t RETURNING transaction_id",
        {kind.toUtf8(), QByteArray::number(chargeId),
         refundId > 0 ? QByteArray::number(refundId) : QByteArray(),
         QByteArray::number(debitAccount), QByteArray::number(creditAccount), currency.toUtf8(),
         QByteArray::number(amount)});
    if (!rows)
        return rows.error();
    // A pipelined transaction queues the statement and returns no rows.
    return rows->size() > 0 ? rows->toInt64(0, 0) : qint64(0);
}

Result<qint64> Ledger::suspenseAccount(const QString &currency)
{
    Result<PgRows> suspense = m_session.query(
        "SELECT id FROM keel.ledger_accounts WHERE kind = 'suspense' AND currency = $1",
        {currency.toUtf8()});
    if (!suspense)
        return suspense.error();
    if (suspense->size() != 1)
        return makeError(ErrorKind::Schema,
                         QStringLiteral("there is no suspense account for %1").arg(currency));
    return suspense->toInt64(0, 0);
}

Result<qint64> Ledger::postSuspense(qint64 chargeId, qint64 merchantId, const QString &currency,
                                    qint64 amount)
{
    Result<std::pair<qint64, qint64>> accounts = clearingAndPayable(merchantId, currency);
    if (!accounts)
        return accounts.error();
    Result<qint64> suspense = suspenseAccount(currency);
    if (!suspense)
        return suspense.error();
    return post(QStringLiteral("suspense_in"), chargeId, 0, accounts->second, *suspense, currency,
                amount);
}

Status Ledger::postCapture(qint64 chargeId, qint64 merchantId, const QString &currency,
                           qint64 amount)
{
    Result<std::pair<qint64, qint64>> accounts = clearingAndPayable(merchantId, currency);
    if (!accounts)
        return accounts.error();
    Result<qint64> posted = post(QStringLiteral("capture"), chargeId, 0, accounts->first,
                                 accounts->second, currency, amount);
    if (!posted)
        return posted.error();
    return {};
}

Status Ledger::postRefund(qint64 chargeId, qint64 refundId, qint64 merchantId,
                          const QString &currency, qint64 amount)
{
    Result<std::pair<qint64, qint64>> accounts = clearingAndPayable(merchantId, currency);
    if (!accounts)
        return accounts.error();
    Result<qint64> posted = post(QStringLiteral("refund"), chargeId, refundId, accounts->second,
                                 accounts->first, currency, amount);
    if (!posted)
        return posted.error();
    return {};
}

Result<Ledger::AuditReport> Ledger::audit(PgConnection &session)
{
    AuditReport report;
    Result<PgRows> counts = session.query("SELECT (SELECT count(*) FROM keel.ledger_transactions), "
                                          "       (SELECT count(*) FROM keel.ledger_entries)");
    if (!counts)
        return counts.error();
    report.transactions = counts->toInt64(0, 0);
    report.entries = counts->toInt64(0, 1);

    struct Check {
        const char *sql;
        const char *message;
    };
    static const Check checks[] = {
        {"SELECT transaction_id::text, currency, sum(amount)::text FROM keel.ledger_entries "
         "GROUP BY transaction_id, currency HAVING sum(amount) <> 0 ORDER BY transaction_id LIMIT "
         "1",
         "ledger transaction %1 does not balance in %2: %3 left over"},
        {"SELECT currency, sum(amount)::text, '' FROM keel.ledger_entries GROUP BY currency "
         "HAVING sum(amount) <> 0 ORDER BY currency LIMIT 1",
         "the books do not sum to zero in %1: %2 (%3)"},
        {"SELECT e.id::text, e.currency, a.currency FROM keel.ledger_entries e "
         "JOIN keel.ledger_accounts a ON a.id = e.account_id WHERE a.currency <> e.currency "
         "ORDER BY e.id LIMIT 1",
         "ledger entry %1 is in %2 but its account is in %3"},
        {"SELECT c.public_id, c.amount_captured::text, coalesce(p.posted, 0)::text "
         "FROM keel.charges c LEFT JOIN (SELECT t.charge_id, sum(e.amount) AS posted "
         "  FROM keel.ledger_transactions t JOIN keel.ledger_entries e ON e.transaction_id = t.id "
         "  WHERE t.kind = 'capture' AND e.amount > 0 GROUP BY t.charge_id) p ON p.charge_id = "
         "c.id "
         "WHERE c.amount_captured <> coalesce(p.posted, 0) ORDER BY c.id LIMIT 1",
         "charge %1 records %2 captured but the ledger has %3 posted for it"},
        {"SELECT c.public_id, c.amount_refunded::text, coalesce(p.posted, 0)::text "
         "FROM keel.charges c LEFT JOIN (SELECT t.charge_id, sum(e.amount) AS posted "
         "  FROM keel.ledger_transactions t JOIN keel.ledger_entries e ON e.transaction_id = t.id "
         "  WHERE t.kind = 'refund' AND e.amount > 0 GROUP BY t.charge_id) p ON p.charge_id = c.id "
         "WHERE c.amount_refunded <> coalesce(p.posted, 0) ORDER BY c.id LIMIT 1",
         "charge %1 records %2 refunded but the ledger has %3 posted for it"},
        {"SELECT t.id::text, coalesce(c.amount, 0)::text, "
         "       (-sum(e.amount) FILTER (WHERE a.kind = 'suspense'))::text "
         "FROM keel.ledger_transactions t JOIN keel.ledger_entries e ON e.transaction_id = t.id "
         "JOIN keel.ledger_accounts a ON a.id = e.account_id "
         "LEFT JOIN keel.suspense_cases c ON c.ledger_transaction_id = t.id "
         "WHERE t.kind = 'suspense_in' GROUP BY t.id, c.amount "
         "HAVING c.amount IS DISTINCT FROM -sum(e.amount) FILTER (WHERE a.kind = 'suspense') "
         "ORDER BY t.id LIMIT 1",
         "suspense posting %1 belongs to no case or to one of another amount: the case records "
         "%2, the posting moves %3"},
        {"SELECT a.currency, coalesce(-sum(e.amount), 0)::text, "
         "       coalesce((SELECT sum(c.amount) FROM keel.suspense_cases c "
         "         WHERE c.currency = a.currency AND c.status IN ('open', 'in_review')), 0)::text "
         "FROM keel.ledger_accounts a LEFT JOIN keel.ledger_entries e ON e.account_id = a.id "
         "WHERE a.kind = 'suspense' GROUP BY a.currency "
         "HAVING coalesce(-sum(e.amount), 0) <> coalesce((SELECT sum(c.amount) FROM "
         "  keel.suspense_cases c WHERE c.currency = a.currency "
         "  AND c.status IN ('open', 'in_review')), 0) "
         "ORDER BY a.currency LIMIT 1",
         "the suspense account in %1 holds %2 but its open cases add up to %3"},
        {"SELECT c.id::text, c.status, (-coalesce(sum(e.amount), 0))::text "
         "FROM keel.suspense_cases c "
         "JOIN keel.ledger_transactions t ON t.id = c.ledger_transaction_id "
         "  OR t.suspense_case_id = c.id "
         "JOIN keel.ledger_entries e ON e.transaction_id = t.id "
         "JOIN keel.ledger_accounts a ON a.id = e.account_id AND a.kind = 'suspense' "
         "WHERE c.status NOT IN ('open', 'in_review') GROUP BY c.id, c.status "
         "HAVING sum(e.amount) <> 0 ORDER BY c.id LIMIT 1",
         "suspense case %1 is %2 but still holds %3 in suspense"},
    };
    for (const Check &check : checks) {
        Result<PgRows> rows = session.query(check.sql);
        if (!rows)
            return rows.error();
        if (rows->size() > 0)
            report.violations << QString::fromLatin1(check.message)
                                     .arg(rows->text(0, 0), rows->text(0, 1), rows->text(0, 2));
    }
    return report;
}

} // namespace keel
