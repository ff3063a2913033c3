#include "core/payment/Reconciler.h"

#include "core/db/LibpqConnection.h"
#include "core/payment/ChargeService.h"
#include "core/payment/IdempotentOperation.h"
#include "core/payment/PaymentRepository.h"
#include "core/payment/RefundService.h"

namespace keel {
namespace {

// Charges left in flight by a lost answer, untouched for the grace ($1 s).
// In no fixed order: payments the channel cannot settle yet (an Alipay trade
// a late request could still create) stay in flight pass after pass, and a
// page of the oldest would hold every newer one back behind them.
constexpr char InFlightCharges[] = "SELECT c.merchant_id, c.public_id FROM keel.payment_state s "
                                   "JOIN keel.charges c ON c.id = s.charge_id "
                                   "WHERE s.state IN ('Authorizing', 'Capturing') "
                                   "  AND s.updated_at < now() - make_interval(secs => $1) "
                                   "ORDER BY random() LIMIT $2";

// Charges back in Authorized after a refused capture. A twin of the capture
// lives as long as a request to the channel can, seconds: an hour of asking
// again covers it with room to spare.
constexpr char RefusedCaptures[] =
    "SELECT c.merchant_id, c.public_id FROM keel.payment_state s "
    "JOIN keel.charges c ON c.id = s.charge_id "
    "WHERE s.state = 'Authorized' "
    "  AND s.updated_at < now() - make_interval(secs => $1) "
    "  AND s.updated_at > now() - interval '1 hour' "
    "  AND (SELECT e.event_type FROM keel.payment_events e WHERE e.charge_id = s.charge_id "
    "       ORDER BY e.id DESC LIMIT 1) = 'capture_retry' "
    "ORDER BY s.updated_at LIMIT $2";

// Refunds whose answer was lost leave their charge in Refunding; in no
// fixed order, as for charges.
constexpr char InFlightRefunds[] =
    "SELECT c.merchant_id, r.public_id, c.public_id FROM keel.refunds r "
    "JOIN keel.charges c ON c.id = r.charge_id JOIN keel.payment_state s ON s.charge_id = c.id "
    "WHERE s.state = 'Refunding' AND r.status = 'pending' "
    "  AND s.updated_at < now() - make_interval(secs => $1) "
    "ORDER BY random() LIMIT $2";

} // namespace

Reconciler::Reconciler(const PaymentContext &context, LibpqConnection &connection,
                       const ReplyRenderer &replies)
    : m_context(context), m_connection(connection), m_replies(replies)
{}

Result<PgRows> Reconciler::dueRows(const char *sql, int graceSeconds, int batch)
{
    return m_connection.query(sql, {QByteArray::number(graceSeconds), QByteArray::number(batch)});
}

Result<Reconciler::Report> Reconciler::runOnce(int graceSeconds, int batch)
{
    Report report;
    if (Status charges = settleCharges(graceSeconds, batch, report); !charges)
        return charges.error();
    if (Status refunds = settleRefunds(graceSeconds, batch, report); !refunds)
        return refunds.error();
    if (Status captures = recheckRefusedCaptures(graceSeconds, batch, report); !captures)
        return captures.error();
    return report;
}

void Reconciler::count(const PaymentOutcome &outcome, const QString &paymentId,
                       const QString &resourceId, Report &report)
{
    if (!outcome.final()) {
        ++report.failed;
        return;
    }
    ++report.resolved;
    IdempotentOperation keys(m_context, m_connection, m_replies, {});
    if (Result<int> answered = keys.answerSilentHolders(paymentId, outcome, resourceId); answered)
        report.keysAnswered += *answered;
    else
        ++report.failed;
}

void Reconciler::forEachCharge(const PgRows &due, Report &report,
                               const std::function<void(ChargeRecord &)> &settle)
{
    PaymentRepository repository(m_connection);
    for (int i = 0; i < due.size(); ++i) {
        ++report.examined;
        Result<std::optional<ChargeRecord>> charge =
            repository.findByPublicId(due.toInt64(i, 0), due.text(i, 1));
        if (!charge || !charge->has_value()) {
            ++report.failed;
            continue;
        }
        ChargeRecord record = **charge;
        settle(record);
    }
}

Status Reconciler::settleCharges(int graceSeconds, int batch, Report &report)
{
    Result<PgRows> due = dueRows(InFlightCharges, graceSeconds, batch);
    if (!due)
        return due.error();
    ChargeService service(m_context, m_connection, m_replies);
    forEachCharge(*due, report, [&](ChargeRecord &charge) {
        // A concurrent resolver that got there first makes this one fail its
        // optimistic transition, which is fine: the payment is settled.
        count(service.resolveInFlight(charge), charge.publicId, charge.publicId, report);
    });
    return {};
}

Status Reconciler::recheckRefusedCaptures(int graceSeconds, int batch, Report &report)
{
    Result<PgRows> due = dueRows(RefusedCaptures, graceSeconds, batch);
    if (!due)
        return due.error();
    ChargeService service(m_context, m_connection, m_replies);
    forEachCharge(*due, report, [&](ChargeRecord &charge) {
        const PaymentOutcome outcome = service.recheckRefusedCapture(charge);
        if (!outcome.final())
            ++report.failed;
        else if (charge.state == PaymentState::Captured)
            ++report.resolved;
    });
    return {};
}

Status Reconciler::settleRefunds(int graceSeconds, int batch, Report &report)
{
    Result<PgRows> due = dueRows(InFlightRefunds, graceSeconds, batch);
    if (!due)
        return due.error();
    RefundService service(m_context, m_connection, m_replies);
    for (int i = 0; i < due->size(); ++i) {
        ++report.examined;
        // A refund's key waits on its charge until the refund exists.
        count(service.resolveInFlight(due->toInt64(i, 0), due->text(i, 1)), due->text(i, 2),
              due->text(i, 1), report);
    }
    return {};
}

} // namespace keel
