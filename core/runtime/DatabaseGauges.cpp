#include "core/runtime/DatabaseGauges.h"

#include "core/db/LibpqConnection.h"
#include "core/metrics/Metrics.h"
#include "core/outbox/OutboxRelay.h"
#include "core/saga/StuckSagas.h"

namespace keel {

Status refreshDatabaseGauges(LibpqConnection &session)
{
    Result<qint64> stuck = stuckSagas::count(session);
    if (!stuck)
        return stuck.error();
    Metrics::instance().setSagasStuck(*stuck);
    if (Status outbox = measureOutbox(session); !outbox)
        return outbox;
    Result<PgRows> late = session.query(
        "SELECT count(*) FROM keel.suspense_cases k CROSS JOIN keel.ops_policy p "
        "WHERE k.status IN ('open', 'in_review') AND k.opened_at + p.case_deadline < now()");
    if (!late)
        return late.error();
    Metrics::instance().setSuspensePastDeadline(late->toInt64(0, 0));
    // What the reconciler has not settled: an answer lost for good, or a
    // channel that keeps the payment in doubt (a reverse never answered).
    Result<PgRows> doubt = session.query(
        "SELECT coalesce(extract(epoch FROM now() - least("
        "(SELECT min(updated_at) FROM keel.payment_state "
        " WHERE state IN ('Authorizing', 'Capturing', 'Refunding')), "
        "(SELECT min(created_at) FROM keel.refunds WHERE status = 'pending'))), 0)::bigint");
    if (!doubt)
        return doubt.error();
    Metrics::instance().setOldestInDoubtSeconds(doubt->toInt64(0, 0));
    return {};
}

} // namespace keel
