#include "core/db/MigrationSource.h"

#include <gtest/gtest.h>

#include <QFile>
#include <QTemporaryDir>

using keel::MigrationSource;

namespace {

void writeFile(const QString &path, const QByteArray &content)
{
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(content);
}

} // namespace

TEST(MigrationSource, EmbeddedMigrationsAreNumberedWithoutGapsAndChecksummed)
{
    auto migrations = MigrationSource::load();
    ASSERT_TRUE(migrations.ok()) << qPrintable(migrations.error().message);
    ASSERT_GE(migrations->size(), 2);
    for (int i = 0; i < migrations->size(); ++i) {
        EXPECT_EQ(migrations->at(i).version, i + 1);
        EXPECT_EQ(migrations->at(i).checksum.size(), 64);
        EXPECT_FALSE(migrations->at(i).sql.isEmpty());
    }
    EXPECT_EQ(migrations->at(0).label(), QStringLiteral("0001_schema_v1"));
}

TEST(MigrationSource, BootstrapSqlIsEmbedded)
{
    EXPECT_TRUE(MigrationSource::bootstrapSql().contains("keel_owner"));
}

TEST(MigrationSource, RefusesAGapInVersions)
{
    QTemporaryDir dir;
    writeFile(dir.filePath(QStringLiteral("0001_a.sql")), "SELECT 1;");
    writeFile(dir.filePath(QStringLiteral("0003_c.sql")), "SELECT 3;");
    auto migrations = MigrationSource::load(dir.path());
    ASSERT_FALSE(migrations.ok());
    EXPECT_TRUE(migrations.error().message.contains(QLatin1String("0003_c.sql")));
}

TEST(MigrationSource, RefusesABadlyNamedFile)
{
    QTemporaryDir dir;
    writeFile(dir.filePath(QStringLiteral("0001_a.sql")), "SELECT 1;");
    writeFile(dir.filePath(QStringLiteral("2_Add Things.sql")), "SELECT 2;");
    auto migrations = MigrationSource::load(dir.path());
    ASSERT_FALSE(migrations.ok());
    EXPECT_TRUE(migrations.error().message.contains(QLatin1String("NNNN_name.sql")));
}

TEST(MigrationSource, ChecksumChangesWithContent)
{
    QTemporaryDir dir;
    writeFile(dir.filePath(QStringLiteral("0001_a.sql")), "SELECT 1;");
    auto first = MigrationSource::load(dir.path());
    writeFile(dir.filePath(QStringLiteral("0001_a.sql")), "SELECT 1; ");
    auto second = MigrationSource::load(dir.path());
    ASSERT_TRUE(first.ok() && second.ok());
    EXPECT_NE(first->at(0).checksum, second->at(0).checksum);
}
