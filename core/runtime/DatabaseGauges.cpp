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
    return {};
}

} // namespace keel
