#pragma once

#include "core/Result.h"
#include "core/db/MigrationSource.h"

#include <QDateTime>
#include <QSqlDatabase>

#include <functional>

namespace keel {

struct MigrationStatus {
    Migration migration;
    bool applied = false;
    QDateTime appliedAt;
    QString appliedBy;
};

// A migration as a database recorded it.
struct AppliedVersion {
    int version = 0;
    QString checksum;
};

// Refuses a schema a binary shipping `shipped` cannot work on: a version it
// does not know, or one whose file changed after it was applied; with
// `complete`, also one missing versions it ships.
Status compareWithShipped(const QList<Migration> &shipped, const QList<AppliedVersion> &applied,
                          bool complete);

// Brings a database's schema to the versions this binary ships. Each migration
// runs in its own transaction as the NOLOGIN role keel_owner (so no login role
// ever owns a table), under a session advisory lock so that concurrent
// migrators apply each version exactly once. An applied migration whose file
// changed is refused before anything is written.
class Migrator final {
public:
    Migrator(QSqlDatabase db, QList<Migration> migrations);

    using AppliedCallback = std::function<void(const Migration &, qint64 elapsedMs)>;

    // Applies what is missing; returns how many migrations were applied.
    Result<int> migrate(const AppliedCallback &onApplied = {});

    // Applied and pending versions, without changing anything.
    Result<QList<MigrationStatus>> status();

    // Succeeds only if the database is at exactly the shipped version.
    Status checkCurrent();

private:
    struct Applied {
        int version;
        QString name;
        QString checksum;
        QDateTime appliedAt;
        QString appliedBy;
    };

    Result<QList<Applied>> readApplied();
    Status verify(const QList<Applied> &applied, bool complete = false) const;
    Status apply(const Migration &migration);

    QSqlDatabase m_db;
    QList<Migration> m_migrations;
};

} // namespace keel
