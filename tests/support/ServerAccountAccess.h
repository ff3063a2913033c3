#pragma once

#include <QFile>
#include <QString>

namespace keel::test {

// Servers a test starts (PostgreSQL, PgBouncer, pg_auto_failover) run as
// their own account, which must pass through the test's temporary directory
// (created 0700 for root) to reach the directories made for it inside.
inline void letServerAccountThrough(const QString &directory)
{
    QFile::setPermissions(directory,
                          QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ExeOther);
}

} // namespace keel::test
