#pragma once

#include "core/Result.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace keel {

struct Migration {
    int version = 0;
    QString name; // "schema_v1", from 0001_schema_v1.sql
    QByteArray sql;
    QString checksum; // SHA-256 of the file's bytes, hex

    QString label() const
    {
        return QStringLiteral("%1_%2").arg(version, 4, 10, QLatin1Char('0')).arg(name);
    }
};

// The migration files this binary ships (compiled in from resources/migrations),
// or those of a directory given instead (tests and operators checking a change).
class MigrationSource final {
public:
    static QString embeddedDirectory() { return QStringLiteral(":/keel/migrations"); }

    // Files named NNNN_name.sql, versions 1..N without gaps.
    static Result<QList<Migration>> load(const QString &directory = embeddedDirectory());

    // The idempotent role and schema bootstrap run before any migration.
    static QByteArray bootstrapSql();
};

} // namespace keel
