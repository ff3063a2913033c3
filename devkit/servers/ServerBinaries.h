#pragma once

#include "core/Result.h"

#include <QString>

namespace keel {

// Finds PostgreSQL's server programs (initdb, postgres, pg_ctl), which Debian
// keeps off PATH in /usr/lib/postgresql/<major>/bin.
class ServerBinaries final {
public:
    // KEEL_PG_BINDIR if set (and then only it), else `pg_config --bindir`, else
    // the newest /usr/lib/postgresql/*/bin, else PATH.
    static Result<ServerBinaries> locate();

    QString directory() const { return m_directory; }
    QString program(const QString &name) const;

private:
    QString m_directory;
};

} // namespace keel
