#pragma once

#include "core/Result.h"

#include <QSqlDatabase>
#include <QString>
#include <QStringList>

namespace keel {

// Who the console is connected as and what keel lets that person do. The UI
// enables actions from this; the database enforces them regardless.
struct SessionInfo {
    QString user;
    QString database;
    QString serverVersion;
    bool superuser = false;
    QStringList keelRoles; // keel_operator, keel_auditor, ... held directly or through membership
    int schemaVersion = 0;

    bool holds(const QString &role) const { return superuser || keelRoles.contains(role); }
    static Result<SessionInfo> load(QSqlDatabase db);
};

} // namespace keel
