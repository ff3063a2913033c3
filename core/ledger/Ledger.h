#pragma once

#include "core/Result.h"

#include <QString>
#include <QStringList>

#include <utility>

namespace keel {

class LibpqConnection;

// Money that moved for one charge of one merchant, in minor units of `currency`.
struct ChargeMoney {
    qint64 chargeId = 0;
    qint64 merchantId = 0;
    QString currency;
    qint64 amount = 0;
};

// Double-entry postings for money that moved. Amounts are signed minor units:
// debit > 0, credit < 0; each posting sums to zero in its currency (the
// database refuses anything else at commit). Callers own the transaction.
class Ledger final {
public:
    explicit Ledger(LibpqConnection &session) : m_session(session) {}

    // Finds or creates, committed at once, the accounts that postings for this
    // merchant and currency use. Call it outside any transaction before
    // posting in a pipelined one, which cannot wait for an account's id.
    Status prepareAccounts(qint64 merchantId, const QString &currency);

    // Money captured from the card network is owed to the merchant:
    // debit channel clearing, credit the merchant's payable account.
    Status postCapture(const ChargeMoney &captured);
    // The reverse, for a refund.
    Status postRefund(qint64 refundId, const ChargeMoney &refunded);

    // Money that automatic compensation could not return (a refund that
    // failed three rounds) leaves the merchant's payable account for the
    // currency's suspense account (差错户), where settlement staff take it up.
    // Returns the ledger transaction's id.
    Result<qint64> postSuspense(const ChargeMoney &held);
    // (The reverse, a case's money handed back for a resumed saga, is the
    // database's keel.resume_case(): only it closes a case that way.)

    struct AuditReport {
        qint64 transactions = 0;
        qint64 entries = 0;
        qint64 chargesAgainstChannel = 0; // charges the channel's own record was compared for
        // One line per check that failed, naming its first offender; empty when
        // the ledger balances.
        QStringList violations;
    };
    // Checks the whole ledger: every transaction balances per currency, the
    // books sum to zero per currency, every entry is in its account's
    // currency, and every charge's captured and refunded amounts match what
    // was posted for it, every suspense posting belongs to its case, and each
    // suspense account holds what its open cases add up to, and every closed case
    // nets to zero in suspense. Per charge, what keel booked with the channel
    // matches the channel's own record where keel holds one, and what sits in
    // suspense is what its open cases hold; per open case, its postings hold
    // its amount. Every check runs, so one bad row shows everything it breaks.
    static Result<AuditReport> audit(LibpqConnection &session);

private:
    Result<qint64> accountId(const QString &code, const QString &kind, const QString &currency,
                             qint64 merchantId);
    Result<qint64> suspenseAccount(const QString &currency);
    Result<std::pair<qint64, qint64>> clearingAndPayable(qint64 merchantId,
                                                         const QString &currency);
    // One ledger transaction: `amount` from `creditAccount` to `debitAccount`.
    struct Posting {
        const char *kind = nullptr; // ledger_transactions.kind
        qint64 refundId = 0;        // 0: not a refund's
        qint64 debitAccount = 0;
        qint64 creditAccount = 0;
    };
    Result<qint64> post(const Posting &posting, const ChargeMoney &money);

    LibpqConnection &m_session;
};

} // namespace keel
