#include "core/db/Migrator.h"

#include "core/db/QtSqlConnections.h"

#include <QElapsedTimer>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace keel {
namespace {

// 'keelmigr' as a big-endian integer: one advisory lock for every migrator.
constexpr qint64 MigrationLockKey = 0x6b65656c6d696772;

// Holds the session-level advisory lock for its lifetime.
class AdvisoryLock final {
public:
    explicit AdvisoryLock(QSqlDatabase db) : m_db(std::move(db)) {}
    ~AdvisoryLock()
    {
        if (m_held) {
            QSqlQuery unlock(m_db);
            unlock.prepare(QStringLiteral("SELECT pg_advisory_unlock(?)"));
            unlock.addBindValue(MigrationLockKey);
            unlock.exec();
        }
    }
    Q_DISABLE_COPY_MOVE(AdvisoryLock)

    Status acquire()
    {
        QSqlQuery lock(m_db);
        lock.prepare(QStringLiteral("SELECT pg_advisory_lock(?)"));
        lock.addBindValue(MigrationLockKey);
        if (Status status = QtSqlConnections::exec(lock); !status)
            return status;
        m_held = true;
        return {};
    }

private:
    QSqlDatabase m_db;
    bool m_held = false;
};

Status rollback(QSqlDatabase &db, Error error)
{
    QSqlQuery(db).exec(QStringLiteral("ROLLBACK"));
    return error;
}

} // namespace

Migrator::Migrator(QSqlDatabase db, QList<Migration> migrations)
    : m_db(std::move(db)), m_migrations(std::move(migrations))
{}

Result<QList<Migrator::Applied>> Migrator::readApplied()
{
    QSqlQuery query(m_db);
    if (Status status = QtSqlConnections::exec(
            query, QStringLiteral("SELECT to_regclass('keel.schema_migrations') IS NOT NULL"));
        !status)
        return status.error();
    query.next();
    QList<Applied> applied;
    if (!query.value(0).toBool())
        return applied;
    if (Status status = QtSqlConnections::exec(
            query, QStringLiteral("SELECT version, name, checksum, applied_at, applied_by "
                                  "FROM keel.schema_migrations ORDER BY version"));
        !status)
        return makeError(
            ErrorKind::Failed,
            QStringLiteral("cannot read keel.schema_migrations: %1").arg(status.error().message));
    while (query.next())
        applied.append({query.value(0).toInt(), query.value(1).toString(),
                        query.value(2).toString(), query.value(3).toDateTime(),
                        query.value(4).toString()});
    return applied;
}

Status compareWithShipped(const QList<Migration> &shipped, const QList<AppliedVersion> &applied,
                          bool complete)
{
    const int known = int(shipped.size());
    for (const AppliedVersion &row : applied) {
        if (row.version > known)
            return makeError(ErrorKind::Schema,
                             QStringLiteral("the database schema is at version %1, newer than this "
                                            "keel knows (up to %2); use a newer keel binary")
                                 .arg(row.version)
                                 .arg(known));
        const Migration &migration = shipped.at(row.version - 1);
        if (migration.checksum != row.checksum)
            return makeError(ErrorKind::Schema,
                             QStringLiteral("migration %1 was changed after it was applied (its "
                                            "checksum differs from the one recorded); applied "
                                            "migrations are append-only: restore the file and put "
                                            "the change in a new migration")
                                 .arg(migration.label()));
    }
    if (complete && applied.size() < shipped.size())
        return makeError(ErrorKind::Schema,
                         QStringLiteral("the database schema is at version %1 but this keel needs "
                                        "%2; run: keel migrate --db DSN")
                             .arg(applied.size())
                             .arg(shipped.size()));
    return {};
}

Status Migrator::verify(const QList<Applied> &applied, bool complete) const
{
    QList<AppliedVersion> versions;
    versions.reserve(applied.size());
    for (const Applied &row : applied)
        versions.append({row.version, row.checksum});
    return compareWithShipped(m_migrations, versions, complete);
}

Result<int> Migrator::migrate(const AppliedCallback &onApplied)
{
    AdvisoryLock lock(m_db);
    if (Status status = lock.acquire(); !status)
        return status.error();

    // Checked before the bootstrap so that a refused database is left untouched.
    Result<QList<Applied>> before = readApplied();
    if (!before)
        return before.error();
    if (Status status = verify(*before); !status)
        return status.error();

    const QByteArray bootstrap = MigrationSource::bootstrapSql();
    if (bootstrap.isEmpty())
        return makeError(ErrorKind::Environment,
                         QStringLiteral("the bootstrap SQL is missing from this build"));
    if (Status status = QtSqlConnections::execScript(m_db, bootstrap); !status)
        return makeError(ErrorKind::Failed,
                         QStringLiteral("cannot prepare roles and schema: %1 (the migrating role "
                                        "needs CREATEROLE and CREATE on the database)")
                             .arg(status.error().message));

    int count = 0;
    for (const Migration &migration : std::as_const(m_migrations)) {
        if (migration.version <= before->size())
            continue;
        QElapsedTimer timer;
        timer.start();
        if (Status status = apply(migration); !status)
            return status.error();
        ++count;
        if (onApplied)
            onApplied(migration, timer.elapsed());
    }
    return count;
}

Status Migrator::apply(const Migration &migration)
{
    QElapsedTimer timer;
    timer.start();
    QSqlQuery query(m_db);
    if (Status status = QtSqlConnections::exec(query, QStringLiteral("BEGIN")); !status)
        return status;
    if (Status status = QtSqlConnections::exec(
            query, QStringLiteral("SET LOCAL ROLE keel_owner; SET LOCAL search_path TO keel"));
        !status)
        return rollback(m_db, status.error());
    if (Status status = QtSqlConnections::execScript(m_db, migration.sql); !status)
        return rollback(m_db,
                        makeError(ErrorKind::Failed,
                                  QStringLiteral("migration %1 failed and was rolled back: %2")
                                      .arg(migration.label(), status.error().message)));
    query.prepare(QStringLiteral(
        "INSERT INTO keel.schema_migrations (version, name, checksum, applied_by, execution_ms) "
        "VALUES (?, ?, ?, session_user, ?)"));
    query.addBindValue(migration.version);
    query.addBindValue(migration.name);
    query.addBindValue(migration.checksum);
    query.addBindValue(qint64(timer.elapsed()));
    if (Status status = QtSqlConnections::exec(query); !status)
        return rollback(m_db, status.error());
    if (Status status = QtSqlConnections::exec(query, QStringLiteral("COMMIT")); !status)
        return rollback(m_db, status.error());
    return {};
}

Result<QList<MigrationStatus>> Migrator::status()
{
    Result<QList<Applied>> applied = readApplied();
    if (!applied)
        return applied.error();
    if (Status status = verify(*applied); !status)
        return status.error();
    QList<MigrationStatus> result;
    for (const Migration &migration : std::as_const(m_migrations)) {
        MigrationStatus entry{migration, false, {}, {}};
        if (migration.version <= applied->size()) {
            const Applied &row = applied->at(migration.version - 1);
            entry.applied = true;
            entry.appliedAt = row.appliedAt;
            entry.appliedBy = row.appliedBy;
        }
        result.append(entry);
    }
    return result;
}

Status Migrator::checkCurrent()
{
    Result<QList<Applied>> applied = readApplied();
    if (!applied)
        return applied.error();
    return verify(*applied, true);
}

} // namespace keel
