// "Payments by state" comes from totals folded out of payment_events; they must
// equal a full count, including when transactions commit out of id order.
#include "MigratedDatabaseTest.h"
#include "WaitUntil.h"

#include "core/db/LibpqConnection.h"
#include "core/metrics/PaymentStateFold.h"
#include "devkit/sim/HistorySeeder.h"

#include <QElapsedTimer>
#include <QMap>
#include <QThread>

using namespace keel;
using keel::test::MigratedDatabaseTest;

namespace {

class PaymentStateFoldTest : public MigratedDatabaseTest {
protected:
    QMap<QString, qint64> rows(const QByteArray &sql)
    {
        QMap<QString, qint64> result;
        auto found = session().query(sql);
        EXPECT_TRUE(found.ok()) << qPrintable(found.error().message);
        for (int i = 0; found.ok() && i < found->size(); ++i)
            result.insert(found->text(i, 0), found->toInt64(i, 1));
        return result;
    }
    QMap<QString, qint64> counted()
    {
        return rows("SELECT state, count(*) FROM keel.payment_state GROUP BY state");
    }
    QMap<QString, qint64> folded()
    {
        return rows("SELECT state, payments FROM keel.payment_state_totals WHERE payments <> 0");
    }
    // A horizon is folded on a pass at least a second after it was noted: one
    // pass notes it, the next (once the noted horizon is old enough) folds.
    void foldTwice()
    {
        ASSERT_TRUE(PaymentStateFold::run(session()).ok());
        ASSERT_TRUE(keel::test::waitUntil([&] {
            auto due = session().scalar("SELECT coalesce(pending_since < now() - interval "
                                        "'1 s', true) FROM keel.payment_state_fold");
            return due.ok() && *due == QLatin1String("t");
        }));
        auto second = PaymentStateFold::run(session());
        ASSERT_TRUE(second.ok()) << qPrintable(second.error().message);
    }
    // Folds until the totals match a full count. Transactions of other tests
    // on the same server (xids are server-wide) may hold a horizon back for a
    // while; a fold that lost an event never catches up and times out.
    bool foldUntilExact(int seconds = 20)
    {
        QElapsedTimer waited;
        waited.start();
        return keel::test::waitUntil(
            [&] { return PaymentStateFold::run(session()).ok() && folded() == counted(); },
            seconds * 1000);
    }
    // Moves one payment from Captured to Refunding the way keel does: its
    // state row and an event, in the caller's transaction.
    static QByteArray moveToRefunding(const QByteArray &chargeId)
    {
        return "UPDATE keel.payment_state SET state = 'Refunding', version = version + 1 "
               "WHERE charge_id = " +
               chargeId +
               "; INSERT INTO keel.payment_events (charge_id, from_state, to_state, event_type) "
               "VALUES (" +
               chargeId + ", 'Captured', 'Refunding', 'refund')";
    }
    QList<QByteArray> capturedCharges(int count)
    {
        auto found = session().query("SELECT charge_id FROM keel.payment_state WHERE state = "
                                     "'Captured' ORDER BY charge_id LIMIT " +
                                     QByteArray::number(count));
        EXPECT_TRUE(found.ok());
        QList<QByteArray> ids;
        for (int i = 0; found.ok() && i < found->size(); ++i)
            ids << found->value(i, 0);
        return ids;
    }
};

} // namespace

TEST_F(PaymentStateFoldTest, TotalsMatchAFullCountAfterBulkHistory)
{
    ASSERT_TRUE(HistorySeeder::seed(session(), {3000, 5, 2}).ok());
    const QMap<QString, qint64> expected = counted();
    ASSERT_FALSE(expected.isEmpty());
    ASSERT_TRUE(foldUntilExact()) << "folded " << folded().size() << " states";
    // The minute's copy holds the same totals for the Overview.
    const QMap<QString, qint64> minute = rows(
        "SELECT state, payments FROM keel.payment_state_minute WHERE payments <> 0 AND minute = "
        "(SELECT max(minute) FROM keel.payment_state_minute)");
    EXPECT_EQ(minute, expected);
}

TEST_F(PaymentStateFoldTest, SmallBatchesStillAddUp)
{
    ASSERT_TRUE(HistorySeeder::seed(session(), {500, 3, 1}).ok());
    ASSERT_TRUE(PaymentStateFold::run(session(), 100, 1).ok()); // notes the horizon
    // The first pass that may fold takes three batches of 100 ids and stops
    // there, far from caught up (the seed wrote about 2,000 events).
    qint64 first = 0;
    EXPECT_TRUE(keel::test::waitUntil(
        [&] {
            auto folded = PaymentStateFold::run(session(), 100, 3);
            first = folded.ok() ? *folded : -1;
            return first != 0;
        },
        20000));
    EXPECT_EQ(first, 300);
    EXPECT_TRUE(foldUntilExact());
}

TEST_F(PaymentStateFoldTest, AnOpenTransactionHoldsTheFoldBackUntilItCommits)
{
    ASSERT_TRUE(HistorySeeder::seed(session(), {200, 2, 1}).ok());
    ASSERT_TRUE(foldUntilExact());
    const QList<QByteArray> charges = capturedCharges(2);
    ASSERT_EQ(charges.size(), 2);

    // A takes the smaller event id but commits last.
    auto slow = LibpqConnection::open(settings());
    ASSERT_TRUE(slow.ok());
    ASSERT_TRUE(slow->exec("BEGIN; " + moveToRefunding(charges.at(0))).ok());
    ASSERT_TRUE(session().exec("BEGIN; " + moveToRefunding(charges.at(1)) + "; COMMIT").ok());
    foldTwice();
    foldTwice();
    // A's event cannot be counted while A is open (B's may or may not be yet).
    EXPECT_LE(folded().value(QStringLiteral("Refunding")),
              counted().value(QStringLiteral("Refunding")) - 1);

    // Once A commits, both are counted: folding past A's id while it was open
    // would have lost its event for good, and this would time out.
    ASSERT_TRUE(slow->exec("COMMIT").ok());
    EXPECT_TRUE(foldUntilExact());
}

TEST_F(PaymentStateFoldTest, OnlyOneProcessFoldsAtATime)
{
    ASSERT_TRUE(HistorySeeder::seed(session(), {100, 2, 1}).ok());
    auto other = LibpqConnection::open(settings());
    ASSERT_TRUE(other.ok());
    ASSERT_TRUE(other->exec("BEGIN; SELECT * FROM keel.payment_state_fold FOR UPDATE").ok());
    QElapsedTimer waited;
    waited.start();
    auto skipped = PaymentStateFold::run(session());
    ASSERT_TRUE(skipped.ok());
    EXPECT_EQ(*skipped, 0);
    EXPECT_LT(waited.elapsed(), 2000); // it did not queue behind the other
    ASSERT_TRUE(other->exec("ROLLBACK").ok());
}
