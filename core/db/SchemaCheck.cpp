#include "core/db/SchemaCheck.h"

#include "core/db/LibpqConnection.h"
#include "core/db/MigrationSource.h"
#include "core/db/Migrator.h"

namespace keel {

Status checkSchemaIsCurrent(LibpqConnection &session)
{
    Result<QList<Migration>> shipped = MigrationSource::load();
    if (!shipped)
        return shipped.error();
    Result<QString> exists =
        session.scalar("SELECT to_regclass('keel.schema_migrations') IS NOT NULL");
    if (!exists)
        return exists.error();
    QList<AppliedVersion> applied;
    if (*exists == QLatin1String("t")) {
        Result<PgRows> rows =
            session.query("SELECT version, checksum FROM keel.schema_migrations ORDER BY version");
        if (!rows)
            return rows.error();
        for (int i = 0; i < rows->size(); ++i)
            applied.append({int(rows->toInt64(i, 0)), rows->text(i, 1)});
    }
    return compareWithShipped(*shipped, applied, true);
}

} // namespace keel
