#include "MigratedDatabaseTest.h"

#include "core/db/LibpqConnection.h"

namespace keel::test {

MigratedDatabaseTest::MigratedDatabaseTest() = default;
MigratedDatabaseTest::~MigratedDatabaseTest() = default;

void MigratedDatabaseTest::SetUp()
{
    DatabaseTest::SetUp();
    if (HasFatalFailure())
        return;
    migrate();
    if (HasFatalFailure())
        return;
    auto opened = LibpqConnection::open(settings());
    ASSERT_TRUE(opened.ok()) << qPrintable(opened.error().message);
    m_session = std::make_unique<LibpqConnection>(std::move(opened).value());
}

void MigratedDatabaseTest::TearDown()
{
    m_session.reset(); // before the database is dropped
    DatabaseTest::TearDown();
}

LibpqConnection &MigratedDatabaseTest::session()
{
    return *m_session;
}

void MigratedDatabaseTest::exec(const QByteArray &sql)
{
    const Status done = m_session->exec(sql);
    ASSERT_TRUE(done.ok()) << qPrintable(done.error().message) << "\n" << sql.constData();
}

QString MigratedDatabaseTest::scalar(const QByteArray &sql)
{
    const Result<QString> value = m_session->scalar(sql);
    EXPECT_TRUE(value.ok()) << sql.constData() << ": "
                            << qPrintable(value.ok() ? QString() : value.error().message);
    return value.ok() ? *value : QString();
}

} // namespace keel::test
