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
    // The keel tables this session may read and insert into, as PostgreSQL
    // reports its grants: what the console offers follows these, not role names.
    QStringList readable;
    QStringList insertable;

    bool holds(const QString &role) const { return superuser || keelRoles.contains(role); }
    bool canRead(const QString &table) const { return superuser || readable.contains(table); }
    bool canInsert(const QString &table) const { return superuser || insertable.contains(table); }

    bool canSeeDashboards() const { return canRead(QStringLiteral("metrics_minute")); }
    bool canSeeSuspense() const
    {
        return canRead(QStringLiteral("ledger_accounts")) &&
               canRead(QStringLiteral("ledger_entries"));
    }
    bool canSeeInFlight() const { return canRead(QStringLiteral("payment_state")); }
    bool canSeeHistory() const
    {
        return canRead(QStringLiteral("charges")) && canRead(QStringLiteral("payment_state")) &&
               canRead(QStringLiteral("merchants")) && canRead(QStringLiteral("currencies"));
    }
    bool canProposeActions() const { return canInsert(QStringLiteral("operator_actions")); }
    bool canApproveActions() const { return canInsert(QStringLiteral("approvals")); }
    static Result<SessionInfo> load(QSqlDatabase db);
};

} // namespace keel
