#include "devkit/sim/SimRecord.h"

#include "core/db/LibpqConnection.h"
#include "core/db/ThreadConnections.h"

namespace keel {

std::optional<SimRecord> simRecord(const ConnectionSettings &settings, const QString &reference,
                                   const QString &operation)
{
    Result<LibpqConnection *> session = ThreadConnections::get(settings);
    if (!session)
        return std::nullopt;
    Result<PgRows> rows =
        (*session)->query("SELECT amount, coalesce(currency, '') FROM keel.sim_channel_operations "
                          "WHERE reference = $1 AND operation = $2",
                          {reference.toUtf8(), operation.toUtf8()});
    if (!rows || rows->size() == 0)
        return std::nullopt;
    return SimRecord{rows->text(0, 0).toLongLong(), rows->text(0, 1)};
}

} // namespace keel
