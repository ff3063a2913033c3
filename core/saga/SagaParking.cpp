#include "core/saga/SagaParking.h"

#include "core/db/LibpqConnection.h"
#include "core/db/PgTransaction.h"
#include "core/ledger/Ledger.h"
#include "core/saga/PaymentSteps.h"
#include "core/saga/SagaRecord.h"
#include "core/saga/SagaStore.h"

namespace keel {

Result<SagaParking::Money> SagaParking::moneyInQuestion(const SagaRecord &saga, bool lock)
{
    Money money;
    if (saga.chargeId == 0)
        return money;
    for (const StepRecord &step : saga.steps)
        if (step.definition.kind == StepKind::Charge && step.status == StepStatus::Compensated)
            return money;
    // Locked first and read after: a read in the locking statement keeps the
    // snapshot it took before waiting, and would miss a take-back that held
    // the lock and committed meanwhile (it locks the charge without changing it).
    if (lock)
        if (Result<PgRows> locked =
                m_connection.query("SELECT 1 FROM keel.charges WHERE id = $1 FOR UPDATE",
                                   {QByteArray::number(saga.chargeId)});
            !locked)
            return locked.error();
    // What the channel took back for a dispute, booked or only seen by a run,
    // has left clearing: the customer has it from the chargeback, so no case
    // holds it again, and a later take-back finds no money parked on the
    // charge (migration 0043).
    Result<PgRows> rows = m_connection.query(
        "SELECT greatest(0, amount_captured - amount_refunded - keel.charge_withheld(id)), "
        "currency, merchant_id FROM keel.charges WHERE id = $1",
        {QByteArray::number(saga.chargeId)});
    if (!rows)
        return rows.error();
    if (rows->size() == 1) {
        money.amount = rows->toInt64(0, 0);
        money.currency = rows->text(0, 1);
        money.merchantId = rows->toInt64(0, 2);
    }
    return money;
}

// A charge step names its charge on the saga when it finishes. One still
// running (its answer lost, the channel not asked yet) has made a charge the
// saga does not name: the reconciler may capture it at any moment, and a park
// that did not count it would leave that money with the merchant of an order
// that never completed. Found by the chaos suite's operator desk.
Result<qint64> SagaParking::chargeMadeByItsSteps(const SagaRecord &saga)
{
    for (const StepRecord &step : saga.steps) {
        if (step.definition.kind != StepKind::Charge || step.status == StepStatus::Pending)
            continue;
        Result<PgRows> found = m_connection.query(
            "SELECT id FROM keel.charges WHERE merchant_id = $1 AND out_trade_no = $2",
            {QByteArray::number(saga.merchantId),
             PaymentSteps::orderNumber(saga, step.index).toUtf8()});
        if (!found)
            return found.error();
        if (found->size() == 1)
            return found->toInt64(0, 0);
    }
    return qint64(0);
}

Result<qint64> SagaParking::park(SagaRecord &saga, const QString &owner, const Request &request)
{
    // The caller's record changes only if the whole park commits.
    SagaRecord parked = saga;
    if (parked.chargeId == 0) {
        Result<qint64> made = chargeMadeByItsSteps(parked);
        if (!made)
            return made.error();
        parked.chargeId = *made;
    }
    if (parked.chargeId > 0) {
        // The database refuses the case too (KL425); asking first keeps the
        // common refusal cheap and its words keel's.
        Result<PgRows> inFlight = m_connection.query("SELECT keel.channel_operation_in_flight($1)",
                                                     {QByteArray::number(parked.chargeId)});
        if (!inFlight)
            return inFlight.error();
        if (inFlight->text(0, 0) == QLatin1String("t"))
            return codedError(ErrorKind::Failed, QString::fromLatin1(ErrorCode::ChannelInFlight),
                              QStringLiteral("a channel operation on the saga's charge is in "
                                             "flight; it can be parked once the channel answers"));
    }
    // Accounts are created outside the transaction (see Ledger).
    Result<Money> estimate = moneyInQuestion(parked, false);
    if (!estimate)
        return estimate.error();
    if (estimate->amount > 0)
        if (Status prepared =
                Ledger(m_connection).prepareAccounts(estimate->merchantId, estimate->currency);
            !prepared)
            return prepared.error();

    Result<qint64> opened = parkInTransaction(parked, owner, request);
    if (opened)
        saga = std::move(parked);
    return opened;
}

Result<qint64> SagaParking::parkInTransaction(SagaRecord &saga, const QString &owner,
                                              const Request &request)
{
    PgTransaction tx(m_connection);
    if (!tx.begun())
        return tx.begun().error();
    Result<Money> money = moneyInQuestion(saga, true);
    if (!money)
        return money.error();
    StepChange stepChange;
    stepChange.status = request.stepStatus;
    stepChange.lastError = request.reason;
    stepChange.event = request.stepEvent;
    SagaChange sagaChange;
    sagaChange.status = SagaStatus::Parked;
    sagaChange.currentStep = request.step;
    sagaChange.addRounds = 1;
    sagaChange.lastError = request.reason;
    sagaChange.event = QStringLiteral("parked");
    sagaChange.chargeId = saga.chargeId;
    if (Status recorded =
            SagaStore(m_connection)
                .record(saga, owner, request.step, stepChange, sagaChange, request.detail, false);
        !recorded)
        return recorded.error();
    QByteArray posting;
    if (money->amount > 0) {
        Result<qint64> posted = Ledger(m_connection)
                                    .postSuspense({.chargeId = saga.chargeId,
                                                   .merchantId = money->merchantId,
                                                   .currency = money->currency,
                                                   .amount = money->amount});
        if (!posted)
            return posted.error();
        posting = QByteArray::number(*posted);
    }
    Result<PgRows> opened = m_connection.query(
        "INSERT INTO keel.suspense_cases (saga_id, charge_id, currency, amount, reason, "
        "    ledger_transaction_id) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        {QByteArray::number(saga.id),
         saga.chargeId > 0 ? QByteArray::number(saga.chargeId) : QByteArray(),
         money->currency.isEmpty() ? QByteArray() : money->currency.toUtf8(),
         QByteArray::number(money->amount), request.reason.toUtf8(), posting});
    if (!opened)
        return opened.error();
    if (Status committed = tx.commit(); !committed)
        return committed.error();
    return opened->toInt64(0, 0);
}

} // namespace keel
