#include "core/ledger/Ledger.h"

#include "core/db/LibpqConnection.h"
#include "core/ledger/LedgerChecks.h"

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

Result<qint64> Ledger::post(const Posting &posting, const ChargeMoney &money)
{
    Result<PgRows> rows = m_session.query(
        "WITH t AS (INSERT INTO keel.ledger_transactions (kind, charge_id, refund_id) "
        "  VALUES ($1, $2, $3) RETURNING id) "
        "INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount) "
        "SELECT t.id, $4::bigint, $6::char(3), $7::bigint FROM t UNION ALL "
        "SELECT t.id, $5::bigint, $6::char(3), -$7::bigint FROM t RETURNING transaction_id",
        {QByteArray(posting.kind), QByteArray::number(money.chargeId),
         posting.refundId > 0 ? QByteArray::number(posting.refundId) : QByteArray(),
         QByteArray::number(posting.debitAccount), QByteArray::number(posting.creditAccount),
         money.currency.toUtf8(), QByteArray::number(money.amount)});
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

Result<qint64> Ledger::postSuspense(const ChargeMoney &held)
{
    Result<std::pair<qint64, qint64>> accounts = clearingAndPayable(held.merchantId, held.currency);
    if (!accounts)
        return accounts.error();
    Result<qint64> suspense = suspenseAccount(held.currency);
    if (!suspense)
        return suspense.error();
    return post(
        {.kind = "suspense_in", .debitAccount = accounts->second, .creditAccount = *suspense},
        held);
}

Status Ledger::postCapture(const ChargeMoney &captured)
{
    Result<std::pair<qint64, qint64>> accounts =
        clearingAndPayable(captured.merchantId, captured.currency);
    if (!accounts)
        return accounts.error();
    return statusOf(post(
        {.kind = "capture", .debitAccount = accounts->first, .creditAccount = accounts->second},
        captured));
}

Status Ledger::postRefund(qint64 refundId, const ChargeMoney &refunded)
{
    Result<std::pair<qint64, qint64>> accounts =
        clearingAndPayable(refunded.merchantId, refunded.currency);
    if (!accounts)
        return accounts.error();
    return statusOf(post({.kind = "refund",
                          .refundId = refundId,
                          .debitAccount = accounts->second,
                          .creditAccount = accounts->first},
                         refunded));
}

Result<Ledger::AuditReport> Ledger::audit(LibpqConnection &session)
{
    AuditReport report;
    Result<PgRows> counts =
        session.query("SELECT (SELECT count(*) FROM keel.ledger_transactions), "
                      "       (SELECT count(*) FROM keel.ledger_entries), "
                      "       (SELECT count(DISTINCT c.id) FROM keel.charges c "
                      "          JOIN keel.sim_channel_operations o ON o.reference = c.public_id)");
    if (!counts)
        return counts.error();
    report.transactions = counts->toInt64(0, 0);
    report.entries = counts->toInt64(0, 1);
    report.chargesAgainstChannel = counts->toInt64(0, 2);
    for (const LedgerCheck &check : ledgerChecks()) {
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
