#pragma once

#include "core/Result.h"

#include <QString>

#include <sys/types.h>

namespace keel {

// The operating-system user a PostgreSQL server of keel's runs as. PostgreSQL
// refuses to run as root, so a root caller hands the server to an unprivileged
// account (KEEL_PG_USER, else "postgres", else "nobody"); anyone else runs it
// as themselves.
class ServiceAccount final {
public:
    static Result<ServiceAccount> forServer();

    QString name() const { return m_name; }
    bool switchesUser() const { return m_switchUser; }

    // Creates the directory if missing (mode 0700, owned by this account) and
    // checks that the account owns it and can reach it.
    Status prepareDirectory(const QString &path) const;

    // For QProcess::setChildProcessModifier: drops to this account (if
    // switching) and asks for `deathSignal` when the parent dies (0: none).
    // Runs between fork and exec, so it only makes async-signal-safe calls.
    void enterInChild(int deathSignal) const noexcept;

private:
    QString m_name;
    uid_t m_uid = 0;
    gid_t m_gid = 0;
    bool m_switchUser = false;
};

} // namespace keel
