#include "ReconciliationFixture.h"
#include "WaitUntil.h"

#include "core/db/LibpqConnection.h"
#include "core/db/QtSqlConnections.h"
#include "core/ops/ActionDesk.h"
#include "core/ops/BreakResolutions.h"
#include "core/read/ReconQuery.h"

#include <QSqlDatabase>

#include <algorithm>
#include <functional>
#include <thread>

using namespace keel;
using keel::test::waitUntil;

namespace {

// Every writer of a reconciliation break takes the breaks it needs in the
// order of their ids: a match its two, a case's resolution its cases', a run
// its day's, the end of acceptances the ones that ran out, a statement's
// withdrawal those its lines bear on. Two writers that
// both need two breaks then never wait for each other in a circle, which the
// database would end by failing one of them (a person's approved match, say,
// that would have to be run again).
class BreakLockOrderTest : public keel::test::ReconciliationTest {
protected:
    // Two breaks of the same class on one day, the lower id on the reference
    // that sorts last (a run meets its day's breaks by reference), with
    // their ids. Yesterday's, with a week's lag: no case opens.
    std::pair<qint64, qint64> twoBreaksOrderedAgainstTheirReferences()
    {
        m_day = QDate::currentDate().addDays(-1).toString(Qt::ISODate);
        scalar("UPDATE keel.recon_channels SET settlement_lag = '7 days' WHERE channel = 'sim' "
               "RETURNING 1");
        EXPECT_EQ(import(statement(QStringLiteral("late.csv"),
                                   {QStringLiteral("ch_zzLockOrder0001,S1,payment,1.00,USD,0,"
                                                   "%1T12:00:00Z")}))
                      .exitCode,
                  0);
        run();
        EXPECT_EQ(import(statement(QStringLiteral("early.csv"),
                                   {QStringLiteral("ch_aaLockOrder0002,S2,payment,2.00,USD,0,"
                                                   "%1T12:00:00Z")}))
                      .exitCode,
                  0);
        run();
        return {breakOf("ch_zzLockOrder0001"), breakOf("ch_aaLockOrder0002")};
    }

    QString service() const { return m_serviceLogin.value(QStringLiteral("user")); }

    // Stores the break `first`'s row before `second`'s, so that a scan of the
    // table in its physical order meets `first` first.
    // What makes the tests that use it tests: where the server laid the rows
    // out otherwise, a writer taking breaks in its scan's order would pass.
    void storeInOrder(qint64 first, qint64 second, const QByteArray &change)
    {
        for (qint64 id : {first, second})
            ASSERT_EQ(scalar("UPDATE keel.recon_breaks SET " + change +
                             " WHERE id = " + QByteArray::number(id) + " RETURNING 1"),
                      QStringLiteral("1"));
        ASSERT_EQ(scalar("SELECT id FROM keel.recon_breaks WHERE id IN (" +
                         QByteArray::number(first) + ", " + QByteArray::number(second) +
                         ") ORDER BY ctid LIMIT 1"),
                  QString::number(first))
            << "the rows are not laid out in the order this test needs";
    }

    qint64 breakOf(const QByteArray &reference)
    {
        return scalar("SELECT id FROM keel.recon_breaks WHERE reference = '" + reference + "'")
            .toLongLong();
    }

    struct WhileHeld {
        bool waited = false;     // the writer waited on a lock while `held` was held
        bool lowerTaken = false; // meanwhile, the lower break was the writer's
    };

    // Runs `writer` (as the login `waiter`) while another transaction holds
    // the break `held`, and sees whether the writer had taken `lower` by then.
    WhileHeld whileHolding(qint64 held, qint64 lower, const QString &waiter,
                           const std::function<void()> &writer)
    {
        WhileHeld seen;
        auto holder = LibpqConnection::open(settings());
        if (!holder.ok() || !holder->exec("BEGIN; SELECT 1 FROM keel.recon_breaks WHERE id = " +
                                          QByteArray::number(held) + " FOR UPDATE"))
            return seen;
        std::thread writing(writer);
        seen.waited = waitUntil([&] {
            return scalar("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                          "AND usename = '" +
                          waiter.toUtf8() + "'") == QLatin1String("1");
        });
        auto probe = LibpqConnection::open(settings());
        if (probe.ok()) {
            const Status free = probe->exec("SELECT 1 FROM keel.recon_breaks WHERE id = " +
                                            QByteArray::number(lower) + " FOR UPDATE NOWAIT");
            seen.lowerTaken = !free.ok() && free.error().code == QLatin1String("55P03");
        }
        (void)holder->exec("COMMIT");
        writing.join();
        return seen;
    }
};

TEST_F(BreakLockOrderTest, ARunTakesItsDaysBreaksInTheOrderOfTheirIds)
{
    const auto [lower, higher] = twoBreaksOrderedAgainstTheirReferences();
    ASSERT_GT(lower, 0);
    ASSERT_GT(higher, lower);
    QJsonObject again;
    const WhileHeld seen = whileHolding(higher, lower, service(), [&] { again = run(); });
    ASSERT_TRUE(seen.waited) << "the run never waited for the break held";
    EXPECT_TRUE(seen.lowerTaken) << "the run reached the higher id before the lower";
    EXPECT_EQ(breaks(again).size(), 2) << "the run went on once the break was let go";
}

TEST_F(BreakLockOrderTest, EndingAcceptancesTakesTheirBreaksInTheOrderOfTheirIds)
{
    const auto [lower, higher] = twoBreaksOrderedAgainstTheirReferences();
    ASSERT_GT(higher, lower);
    const QMap<QString, ReconBreakRow> open = listed();
    for (const char *reference : {"ch_aaLockOrder0002", "ch_zzLockOrder0001"})
        ASSERT_EQ(approveAndRun(BreakResolutions::accept(open.value(QLatin1String(reference)),
                                                         QDate::currentDate().addDays(10)))
                      .applied,
                  1);
    // Their dates pass, the higher id's first.
    storeInOrder(higher, lower, "accepted_until = now() - interval '1 minute'");
    QString ended;
    const WhileHeld seen = whileHolding(higher, lower, service(), [&] {
        auto login = LibpqConnection::open(m_serviceLogin);
        auto count = login.ok() ? login->scalar("SELECT keel.recon_expire_acceptances()")
                                : Result<QString>(login.error());
        ended = count.ok() ? *count : count.error().message;
    });
    ASSERT_TRUE(seen.waited) << "ending the acceptances never waited for the break held";
    EXPECT_TRUE(seen.lowerTaken) << "the higher id was taken before the lower";
    EXPECT_EQ(ended, QStringLiteral("2"));
}

// A third statement reports both payments again; withdrawn, it reopens
// both breaks (a person's decision on its lines no longer stands).
TEST_F(BreakLockOrderTest, AWithdrawalTakesItsBreaksInTheOrderOfTheirIds)
{
    const auto [lower, higher] = twoBreaksOrderedAgainstTheirReferences();
    ASSERT_GT(higher, lower);
    ASSERT_EQ(import(statement(QStringLiteral("again.csv"),
                               {QStringLiteral("ch_zzLockOrder0001,S3,payment,1.00,USD,0,"
                                               "%1T13:00:00Z"),
                                QStringLiteral("ch_aaLockOrder0002,S4,payment,2.00,USD,0,"
                                               "%1T13:00:00Z")}))
                  .exitCode,
              0);
    storeInOrder(higher, lower, "raised_at = raised_at");
    auto statements = ReconQuery::statements(as(QStringLiteral("keel_operator")), 10);
    ASSERT_TRUE(statements.ok() && statements->size() == 3);
    const auto newest = std::max_element(
        statements->cbegin(), statements->cend(),
        [](const ReconStatementRow &a, const ReconStatementRow &b) { return a.id < b.id; });
    const qint64 proposal = proposeAndApprove(BreakResolutions::withdrawal(*newest));
    ASSERT_GT(proposal, 0);
    const ConnectionSettings approver = loginAs(QStringLiteral("keel_approver"));
    int applied = 0;
    const WhileHeld seen = whileHolding(higher, lower, approver.value(QStringLiteral("user")),
                                        [&] { applied = executeAsApprover(approver, proposal); });
    ASSERT_TRUE(seen.waited) << "the withdrawal never waited for the break held";
    EXPECT_TRUE(seen.lowerTaken) << "the higher id was taken before the lower";
    EXPECT_EQ(applied, 1);
}

} // namespace
