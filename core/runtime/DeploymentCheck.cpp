#include "core/runtime/DeploymentCheck.h"

#include "core/db/LibpqConnection.h"
#include "core/db/SchemaCheck.h"

#include <QFileInfo>

namespace keel {

QList<Finding> checkServiceLogin(LibpqConnection &session)
{
    QList<Finding> findings;
    Result<PgRows> who = session.query(
        "SELECT current_user, r.rolsuper, pg_has_role(current_user, 'keel_gateway', 'MEMBER'), "
        "  pg_has_role(current_user, 'keel_owner', 'MEMBER'), "
        "  has_table_privilege('keel.charges', 'INSERT'), "
        "  has_table_privilege('keel.ledger_entries', 'DELETE') "
        "FROM pg_roles r WHERE r.rolname = current_user");
    if (!who || who->size() != 1)
        return {{QStringLiteral("login"), QString(),
                 QStringLiteral("cannot read who the login is: %1")
                     .arg(who ? QStringLiteral("no such role") : who.error().message)}};
    const QString user = who->text(0, 0);
    const auto yes = [&](int column) {
        return who->view(0, column) == "t";
    };
    Finding login{QStringLiteral("login"), QStringLiteral("%1").arg(user), {}};
    if (yes(1))
        login.fix = QStringLiteral("%1 is a superuser: services log in as a login of keel_gateway "
                                   "(docs/operations/schema-and-roles.md)")
                        .arg(user);
    else if (yes(3))
        login.fix = QStringLiteral("%1 owns the schema: services log in as a login of "
                                   "keel_gateway, the owner only migrates")
                        .arg(user);
    else if (!yes(2))
        login.fix = QStringLiteral("%1 is not a member of keel_gateway: GRANT keel_gateway TO %1")
                        .arg(user);
    else
        login.found = QStringLiteral("%1, a login of keel_gateway").arg(user);
    findings << login;
    if (Status schema = checkSchemaIsCurrent(session); !schema)
        findings << Finding{QStringLiteral("schema"), QString(), schema.error().message};
    else
        findings << Finding{QStringLiteral("schema"), QStringLiteral("current"), {}};
    if (login.ok()) {
        Finding grants{QStringLiteral("grants"), QStringLiteral("as the service needs"), {}};
        if (!yes(4) || yes(5))
            grants.fix = QStringLiteral("keel_gateway's grants differ from the migrations': run "
                                        "keel migrate as the owner, and grant nothing by hand");
        findings << grants;
    }
    return findings;
}

Finding checkServiceFile(const QString &named, const QString &path, bool secret)
{
    Finding file{QStringLiteral("%1 %2").arg(named, path), QString(), {}};
    const QFileInfo info(path);
    if (!info.exists()) {
        file.fix = QStringLiteral("no such file");
        return file;
    }
    if (!info.isReadable()) {
        file.fix = QStringLiteral("not readable by %1: chown it to the service's user")
                       .arg(qEnvironmentVariable("USER", QStringLiteral("this user")));
        return file;
    }
    const QFileDevice::Permissions others = QFileDevice::ReadGroup | QFileDevice::WriteGroup |
                                            QFileDevice::ReadOther | QFileDevice::WriteOther;
    if (secret && (info.permissions() & others)) {
        file.fix = QStringLiteral("a secret others can read: chmod 600 %1, owned by the service's "
                                  "user")
                       .arg(path);
        return file;
    }
    file.found = secret ? QStringLiteral("present, its owner's alone") : QStringLiteral("present");
    return file;
}

} // namespace keel
