#include "core/saga/StuckSagas.h"

#include "core/db/LibpqConnection.h"

namespace keel::stuckSagas {

const char *condition()
{
    // The attempts are read per active saga through saga_steps' key: as an
    // EXISTS the planner may hash the whole of saga_steps instead, which grows
    // with every saga ever run.
    return "s.status IN ('running', 'compensating') AND "
           "(coalesce(s.progressed_at, s.created_at) < now() - s.stuck_after_seconds * interval '1 "
           "second' OR "
           " (SELECT max(st.attempts + st.compensation_attempts) FROM keel.saga_steps st "
           "  WHERE st.saga_id = s.id) > $1::int)";
}

Result<qint64> count(LibpqConnection &connection, int attemptLimit)
{
    Result<PgRows> rows =
        connection.query(QByteArray("SELECT count(*) FROM keel.sagas s WHERE ") + condition(),
                         {QByteArray::number(attemptLimit)});
    if (!rows)
        return rows.error();
    return rows->toInt64(0, 0);
}

} // namespace keel::stuckSagas
