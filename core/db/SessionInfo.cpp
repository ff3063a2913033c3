#include "core/db/SessionInfo.h"

#include "core/db/Database.h"

#include <QSqlQuery>
#include <QVariant>

namespace keel {

Result<SessionInfo> SessionInfo::load(QSqlDatabase db)
{
    QSqlQuery query(db);
    query.setForwardOnly(true);
    if (Status status = Database::exec(
            query,
            QStringLiteral(
                "SELECT current_user, current_database(), current_setting('server_version'), "
                "  (SELECT rolsuper FROM pg_roles WHERE rolname = current_user), "
                "  (SELECT string_agg(rolname, ',' ORDER BY rolname) FROM pg_roles "
                "    WHERE rolname IN ('keel_gateway', 'keel_operator', 'keel_approver', "
                "                      'keel_auditor', 'keel_sre') "
                "      AND pg_has_role(current_user, oid, 'MEMBER')), "
                "  CASE WHEN to_regclass('keel.schema_migrations') IS NOT NULL "
                "    THEN (SELECT coalesce(max(version), 0) FROM keel.schema_migrations) ELSE 0 "
                "END"));
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
    info.schemaVersion = query.value(5).toInt();
    return info;
}

} // namespace keel
