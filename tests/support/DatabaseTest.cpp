#include "DatabaseTest.h"

#include "core/db/Migrator.h"
#include "core/db/QtSqlConnections.h"

namespace keel::test {

void DatabaseTest::SetUp()
{
    Result<QString> name = TestCluster::instance().createDatabase(QStringLiteral("t"));
    ASSERT_TRUE(name.ok()) << qPrintable(name.error().message);
    m_database = *name;
}

void DatabaseTest::TearDown()
{
    QtSqlConnections::closeThreadConnections();
    if (!m_database.isEmpty())
        TestCluster::instance().dropDatabase(m_database);
    for (const QString &role : std::as_const(m_roles))
        TestCluster::instance().dropRole(role);
}

ConnectionSettings DatabaseTest::settings() const
{
    return TestCluster::instance().settings(m_database);
}

QSqlDatabase DatabaseTest::db()
{
    Result<QSqlDatabase> connection =
        QtSqlConnections::connect(settings(), QStringLiteral("keel-test"));
    EXPECT_TRUE(connection.ok()) << qPrintable(connection.error().message);
    return connection.ok() ? *connection : QSqlDatabase();
}

void DatabaseTest::migrate()
{
    Result<QList<Migration>> migrations = MigrationSource::load();
    ASSERT_TRUE(migrations.ok()) << qPrintable(migrations.error().message);
    Migrator migrator(db(), *migrations);
    Result<int> applied = migrator.migrate();
    ASSERT_TRUE(applied.ok()) << qPrintable(applied.error().message);
}

ConnectionSettings DatabaseTest::loginAs(const QString &groupRole)
{
    const QString role = QStringLiteral("t_%1_%2").arg(groupRole, uniqueSuffix());
    Status created = TestCluster::instance().createLoginRole(role, groupRole);
    EXPECT_TRUE(created.ok()) << qPrintable(created.error().message);
    m_roles << role;
    ConnectionSettings login = settings();
    login.set(QStringLiteral("user"), role);
    return login;
}

} // namespace keel::test
