#include "core/saga/StuckSagas.h"

#include "core/db/PgConnection.h"

namespace keel::stuckSagas {

const char *condition()
{
    return "s.status IN ('running', 'compensating') AND "
           "(s.created_at < now() - s.stuck_after_seconds * interval '1 second' OR EXISTS "
           " (SELECT 1 FROM keel.saga_steps st WHERE st.saga_id = s.id "
           "    AND st.attempts + st.compensation_attempts > $1::int))";
}

Result<qint64> count(PgConnection &connection, int attemptLimit)
{
    Result<PgRows> rows =
        connection.query(QByteArray("SELECT count(*) FROM keel.sagas s WHERE ") + condition(),
                         {QByteArray::number(attemptLimit)});
    if (!rows)
        return rows.error();
    return rows->toInt64(0, 0);
}

} // namespace keel::stuckSagas
