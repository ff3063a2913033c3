#include "MigratedDatabaseTest.h"

#include "core/db/LibpqConnection.h"
#include "core/db/QtSqlConnections.h"
#include "core/read/AuditQuery.h"
#include "core/read/HistoryQuery.h"
#include "core/read/SuspenseQuery.h"
#include "core/saga/SagaQuery.h"

using namespace keel;
using keel::test::MigratedDatabaseTest;

// What a person types into the console's search and filter fields reaches
// PostgreSQL only as bound values: SQL fragments find nothing, fail nothing
// and change nothing, for every field of every list.
class ConsoleSearchInjectionTest : public MigratedDatabaseTest {
protected:
    void SetUp() override
    {
        MigratedDatabaseTest::SetUp();
        ASSERT_FALSE(HasFatalFailure());
        auto session = LibpqConnection::open(settings());
        ASSERT_TRUE(session.ok());
        ASSERT_TRUE(session
                        ->exec("INSERT INTO keel.sagas (kind, public_id, status, business_key) "
                               "VALUES ('order', 'saga_injection0001', 'running', 'order-1'); "
                               "SELECT keel.audit('propose', 'operator_action', '1', '{}')")
                        .ok());
    }
    QString count(const QByteArray &table)
    {
        auto session = LibpqConnection::open(settings());
        auto value = session ? session->scalar("SELECT count(*) FROM keel." + table)
                             : Result<QString>(session.error());
        return value ? *value : value.error().message;
    }

    const QStringList m_payloads{
        QStringLiteral("' OR '1'='1"),
        QStringLiteral("x'; DELETE FROM keel.sagas; --"),
        QStringLiteral("ch_1' UNION SELECT api_key_hash FROM keel.merchants --"),
        QStringLiteral("%"),
        QStringLiteral("_"),
        QStringLiteral("\\"),
        QStringLiteral("$1")};
};

TEST_F(ConsoleSearchInjectionTest, HistoryFieldsFindNothingAndChangeNothing)
{
    auto db = QtSqlConnections::connect(loginAs(QStringLiteral("keel_operator")),
                                        QStringLiteral("keel-test-injection"));
    ASSERT_TRUE(db.ok());
    for (const QString &payload : m_payloads) {
        for (int field = 0; field < 4; ++field) {
            HistoryFilter filter;
            (field == 0   ? filter.chargeId
             : field == 1 ? filter.outTradeNo
             : field == 2 ? filter.currency
                          : filter.state) = payload;
            auto found = HistoryQuery::page(*db, filter, std::nullopt, 50);
            // A field keel checks may refuse the text; none may run it.
            if (found)
                EXPECT_TRUE(found->rows.isEmpty()) << qPrintable(payload);
            else
                EXPECT_FALSE(found.error().is("42601"))
                    << "a syntax error means the text reached the SQL: " << qPrintable(payload);
        }
    }
    EXPECT_EQ(count("sagas"), QStringLiteral("1"));
}

TEST_F(ConsoleSearchInjectionTest, SagaAndAuditFiltersFindNothingAndChangeNothing)
{
    auto sre = LibpqConnection::open(loginAs(QStringLiteral("keel_sre")));
    ASSERT_TRUE(sre.ok());
    auto auditor = QtSqlConnections::connect(loginAs(QStringLiteral("keel_auditor")),
                                             QStringLiteral("keel-test-injection-audit"));
    ASSERT_TRUE(auditor.ok());
    for (const QString &payload : m_payloads) {
        for (int field = 0; field < 3; ++field) {
            SagaFilter filter;
            (field == 0   ? filter.definition
             : field == 1 ? filter.status
                          : filter.businessKey) = payload;
            auto sagas = SagaQuery(*sre).list(filter);
            ASSERT_TRUE(sagas.ok()) << qPrintable(sagas.error().message);
            EXPECT_TRUE(sagas->isEmpty()) << qPrintable(payload);
        }
        for (int field = 0; field < 3; ++field) {
            AuditFilter filter;
            (field == 0 ? filter.actor : field == 1 ? filter.action : filter.object) = payload;
            auto entries = AuditQuery::page(*auditor, filter, std::nullopt, 50);
            ASSERT_TRUE(entries.ok()) << qPrintable(entries.error().message);
            EXPECT_TRUE(entries->entries.isEmpty()) << qPrintable(payload);
        }
    }
    EXPECT_EQ(count("sagas"), QStringLiteral("1"));
    EXPECT_EQ(count("audit_log"), QStringLiteral("1"));
}
