#include "core/db/SessionInfo.h"

#include "core/db/QtSqlConnections.h"

#include <QSqlQuery>
#include <QVariant>

namespace keel {

Result<SessionInfo> SessionInfo::load(QSqlDatabase db)
{
    QSqlQuery query(db);
    query.setForwardOnly(true);
    if (Status status = QtSqlConnections::exec(
            query,
            QStringLiteral(
                "SELECT current_user, current_database(), current_setting('server_version'), "
                "  (SELECT rolsuper FROM pg_roles WHERE rolname = current_user), "
                "  (SELECT string_agg(rolname, ',' ORDER BY rolname) FROM pg_roles "
                "    WHERE rolname IN ('keel_gateway', 'keel_operator', 'keel_approver', "
                "                      'keel_auditor', 'keel_sre') "
                "      AND pg_has_role(current_user, oid, 'MEMBER')), "
                "  (SELECT string_agg(c.relname, ',' ORDER BY c.relname) FROM pg_class c "
                "    JOIN pg_namespace n ON n.oid = c.relnamespace "
                "    WHERE n.nspname = 'keel' AND c.relkind IN ('r', 'p', 'v') "
                "      AND has_schema_privilege(n.oid, 'USAGE') "
                "      AND has_table_privilege(c.oid, 'SELECT')), "
                "  (SELECT string_agg(c.relname, ',' ORDER BY c.relname) FROM pg_class c "
                "    JOIN pg_namespace n ON n.oid = c.relnamespace "
                "    WHERE n.nspname = 'keel' AND c.relkind IN ('r', 'p') "
                "      AND has_schema_privilege(n.oid, 'USAGE') "
                "      AND has_table_privilege(c.oid, 'INSERT'))"));
        !status)
        return status.error();
    if (!query.next())
        return makeError(ErrorKind::Failed, QStringLiteral("no session information"));
    SessionInfo info;
    info.user = query.value(0).toString();
    info.database = query.value(1).toString();
    info.serverVersion = query.value(2).toString();
    info.superuser = query.value(3).toBool();
    const QString roles = query.value(4).toString();
    info.keelRoles = roles.isEmpty() ? QStringList() : roles.split(u',');
    const auto list = [](const QString &joined) {
        return joined.isEmpty() ? QStringList() : joined.split(u',');
    };
    info.readable = list(query.value(5).toString());
    info.insertable = list(query.value(6).toString());
    // A role with no keel grants may not even look inside the schema.
    if (info.canRead(QStringLiteral("schema_migrations"))) {
        if (Status status = QtSqlConnections::exec(
                query,
                QStringLiteral("SELECT coalesce(max(version), 0) FROM keel.schema_migrations"));
            !status)
            return status.error();
        if (query.next())
            info.schemaVersion = query.value(0).toInt();
    }
    return info;
}

} // namespace keel
