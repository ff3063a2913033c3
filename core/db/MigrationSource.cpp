#include "core/db/MigrationSource.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QRegularExpression>

namespace keel {

Result<QList<Migration>> MigrationSource::load(const QString &directory)
{
    const QDir dir(directory);
    if (!dir.exists())
        return makeError(ErrorKind::Environment,
                         QStringLiteral("migration directory %1 does not exist").arg(directory));

    static const QRegularExpression pattern(QStringLiteral("^(\\d{4})_([a-z0-9_]+)\\.sql$"));
    QList<Migration> migrations;
    const QStringList files = dir.entryList({QStringLiteral("*.sql")}, QDir::Files, QDir::Name);
    for (const QString &file : files) {
        const QRegularExpressionMatch match = pattern.match(file);
        if (!match.hasMatch())
            return makeError(
                ErrorKind::Environment,
                QStringLiteral("migration file %1 is not named NNNN_name.sql").arg(file));
        QFile in(dir.filePath(file));
        if (!in.open(QIODevice::ReadOnly))
            return makeError(
                ErrorKind::Environment,
                QStringLiteral("cannot read migration %1: %2").arg(file, in.errorString()));
        Migration migration;
        migration.version = match.captured(1).toInt();
        migration.name = match.captured(2);
        migration.sql = in.readAll();
        migration.checksum = QString::fromLatin1(
            QCryptographicHash::hash(migration.sql, QCryptographicHash::Sha256).toHex());
        if (migration.version != migrations.size() + 1)
            return makeError(ErrorKind::Environment,
                             QStringLiteral("migration %1 breaks the sequence: expected version %2")
                                 .arg(file)
                                 .arg(migrations.size() + 1));
        migrations.append(migration);
    }
    if (migrations.isEmpty())
        return makeError(ErrorKind::Environment,
                         QStringLiteral("no migrations found in %1").arg(directory));
    return migrations;
}

QByteArray MigrationSource::bootstrapSql()
{
    QFile in(QStringLiteral(":/keel/sql/bootstrap.sql"));
    if (!in.open(QIODevice::ReadOnly))
        return {};
    return in.readAll();
}

} // namespace keel
