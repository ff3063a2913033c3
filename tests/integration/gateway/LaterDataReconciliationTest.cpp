#include "ReconciliationFixture.h"

#include <QJsonDocument>

using namespace keel;
using keel::test::ProcessResult;
using keel::test::runKeel;

// What later data does to a day already reconciled: a line found under the
// channel's own id, a line that came late. Its breaks resolve, and what their
// cases parked goes back.
namespace {

using keel::test::item;
using keel::test::ReconciliationTest;

// keel keeps the id the channel answered with for each charge and refund. A
// line that names no record of keel's by keel's reference (a Stripe charge
// without keel's metadata) is matched on that id, whatever day it came on;
// an id keel was never given stays missing_at_keel.
TEST_F(ReconciliationTest, ALineUnderTheChannelsOwnIdIsMatchedToTheRecordItAnsweredFor)
{
    startGateway();
    const QByteArray paid = charge("amount=1500&currency=usd", "recon-own-id");
    ASSERT_EQ(post("/v1/refunds", "charge=" + paid + "&amount=500", "recon-own-id-refund").status,
              200);
    // The simulated network's ids, derived here as the simulator documents
    // them, not by keel's code.
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges WHERE channel_reference = 'sim_' || "
                     "left(md5(public_id || '/authorize'), 24)"),
              QStringLiteral("1"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.refunds WHERE channel_reference = 'sim_' || "
                     "left(md5(public_id || '/refund'), 24)"),
              QStringLiteral("1"));
    const QString paidId = scalar("SELECT channel_reference FROM keel.charges");
    const QString refundId = scalar("SELECT channel_reference FROM keel.refunds");
    ASSERT_EQ(backdateBooks(), QStringLiteral("2"));
    m_day = firstPostingDay();

    const ProcessResult imported = import(statement(
        QStringLiteral("own-ids.csv"),
        {paidId + u',' + paidId + QStringLiteral(",payment,15.00,USD,0,%1T10:00:00Z"),
         refundId + u',' + refundId + QStringLiteral(",refund,5.00,USD,0,%2T01:00:00Z"),
         QStringLiteral("sim_neverAnswered0000000,sim_neverAnswered0000000,payment,2.00,USD,0,"
                        "%1T11:00:00Z")}));
    ASSERT_EQ(imported.exitCode, 0) << qPrintable(imported.err);
    const QJsonObject result = run();
    EXPECT_EQ(result.value(QStringLiteral("matched")).toInt(), 2)
        << QJsonDocument(result).toJson().constData();
    EXPECT_EQ(breaks(result),
              QStringList{QStringLiteral("missing_at_keel:sim_neverAnswered0000000:new")});
    EXPECT_EQ(scalar("SELECT day_lines FROM keel.recon_runs ORDER BY id DESC LIMIT 1"),
              QStringLiteral("2"))
        << "the day's own lines, as the console lists them";
    EXPECT_EQ(run().value(QStringLiteral("result_sha256")),
              result.value(QStringLiteral("result_sha256")));
    // The refund's line came the day after: that day finds it keel's refund's
    // and leaves it to the day the refund's money moved.
    const QJsonObject following =
        run(QStringLiteral("sim"),
            QDate::fromString(m_day, Qt::ISODate).addDays(1).toString(Qt::ISODate));
    EXPECT_TRUE(following.value(QStringLiteral("breaks")).toArray().isEmpty())
        << QJsonDocument(following).toJson().constData();
    EXPECT_EQ(following.value(QStringLiteral("reopened")).toString(), m_day);
}

// The channel reports one payment twice: once under keel's reference with an
// id of its own, and again the next day under the id it answered keel with
// alone. The payment's day finds the second line by the kept id, although
// the payment has a line of its own, and sees a duplicate; the next day
// leaves the line to it.
TEST_F(ReconciliationTest, APaymentReportedAgainUnderTheChannelsIdAloneIsADuplicate)
{
    startGateway();
    const QByteArray paid = charge("amount=1500&currency=usd", "recon-id-twice");
    const QString paidId = scalar("SELECT channel_reference FROM keel.charges");
    ASSERT_FALSE(paidId.isEmpty());
    ASSERT_EQ(backdateBooks(), QStringLiteral("1"));
    m_day = firstPostingDay();
    const QString next = QDate::fromString(m_day, Qt::ISODate).addDays(1).toString(Qt::ISODate);
    const ProcessResult imported = import(
        statement(QStringLiteral("twice.csv"),
                  {item(paid, ",sim_anotherTradeOfIt0000,payment,15.00,USD,0,%1T10:00:00Z"),
                   paidId + u',' + paidId + QStringLiteral(",payment,15.00,USD,0,%2T09:00:00Z")}));
    ASSERT_EQ(imported.exitCode, 0) << qPrintable(imported.err);

    const QJsonObject day = run();
    EXPECT_EQ(breaks(day),
              QStringList{QStringLiteral("duplicate:%1:new").arg(QString::fromUtf8(paid))})
        << QJsonDocument(day).toJson().constData();
    EXPECT_EQ(scalar("SELECT channel_amount || ' ' || keel_amount FROM keel.recon_breaks"),
              QStringLiteral("3000 1500"));
    EXPECT_EQ(scalar("SELECT k.amount || ' ' || c.public_id FROM keel.suspense_cases k "
                     "JOIN keel.charges c ON c.id = k.charge_id"),
              QStringLiteral("1500 %1").arg(QString::fromUtf8(paid)))
        << "the extra report's money is parked once, on the charge";
    const QJsonObject following = run(QStringLiteral("sim"), next);
    EXPECT_TRUE(following.value(QStringLiteral("breaks")).toArray().isEmpty())
        << QJsonDocument(following).toJson().constData();
    EXPECT_EQ(following.value(QStringLiteral("reopened")).toString(), m_day);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.suspense_cases"), QStringLiteral("1"));
    expectBooksAgree();
}

// A line under the channel's id came on a day when keel did not know the id
// yet (the payment's answer carried none): that day found a payment keel
// never made and, past the lag, parked its money, while the payment's day
// parked the capture as owed (migration 0050). Once keel keeps the id, the
// payment's day finds the line and the charge holding nothing: that run
// settles the owed case and reopens the line's day, whose break resolves and
// whose case gives the money back to clearing. The payment's day then
// matches: the money was booked once, by the capture.
TEST_F(ReconciliationTest, ALineJudgedBeforeKeelKnewTheIdGivesItsParkedMoneyBack)
{
    startGateway();
    const QByteArray paid = charge("amount=1500&currency=usd", "recon-id-late");
    const QString paidId = scalar("SELECT channel_reference FROM keel.charges");
    ASSERT_FALSE(paidId.isEmpty());
    ASSERT_EQ(scalar("WITH u AS (UPDATE keel.charges SET channel_reference = NULL RETURNING 1) "
                     "SELECT count(*) FROM u"),
              QStringLiteral("1"));
    ASSERT_EQ(backdateBooks(), QStringLiteral("1"));
    m_day = firstPostingDay();
    const QString next = QDate::fromString(m_day, Qt::ISODate).addDays(1).toString(Qt::ISODate);
    ASSERT_EQ(import(statement(QStringLiteral("under-id.csv"),
                               {paidId + u',' + paidId +
                                QStringLiteral(",payment,15.00,USD,0,%2T09:00:00Z")}))
                  .exitCode,
              0);
    EXPECT_EQ(
        breaks(run()),
        QStringList{QStringLiteral("missing_at_channel:%1:new").arg(QString::fromUtf8(paid))});
    EXPECT_EQ(breaks(run(QStringLiteral("sim"), next)),
              QStringList{QStringLiteral("missing_at_keel:%1:new").arg(paidId)});
    ASSERT_EQ(scalar("SELECT string_agg(k.direction || ':' || k.amount, ' ' ORDER BY k.id) "
                     "FROM keel.suspense_cases k"),
              QStringLiteral("owed:1500 held:1500"));
    ASSERT_EQ(suspense(), QStringLiteral("0")) << "one movement, owed and held";

    ASSERT_EQ(scalar("WITH u AS (UPDATE keel.charges SET channel_reference = '" + paidId.toUtf8() +
                     "' RETURNING 1) SELECT count(*) FROM u"),
              QStringLiteral("1"));
    const QJsonObject day = run();
    EXPECT_EQ(
        breaks(day),
        QStringList{QStringLiteral("amount_mismatch:%1:resolved").arg(QString::fromUtf8(paid))})
        << "the charge held nothing when the line was found; returning the owed case resolved it";
    EXPECT_EQ(day.value(QStringLiteral("cases_opened")).toInt(), 0) << "the owed case covered it";
    EXPECT_EQ(day.value(QStringLiteral("reopened")).toString(), next);
    EXPECT_TRUE(breaks(run(QStringLiteral("sim"), next)).isEmpty());
    EXPECT_TRUE(breaks(run()).isEmpty());
    EXPECT_EQ(scalar("SELECT string_agg(class || ':' || status, ' ' ORDER BY id) "
                     "FROM keel.recon_breaks"),
              QStringLiteral("missing_at_channel:resolved missing_at_keel:resolved "
                             "amount_mismatch:resolved"));
    EXPECT_EQ(scalar("SELECT string_agg(k.direction || ':' || k.amount || ':' || k.status || "
                     "':' || (k.resolution ->> 'kind'), ' ' ORDER BY k.id) "
                     "FROM keel.suspense_cases k"),
              QStringLiteral("owed:1500:resolved:recon_run held:1500:resolved:recon_run"));
    EXPECT_EQ(suspense(), QStringLiteral("0"));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("1500"))
        << "what the channel moved, once";
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_transactions "
                     "WHERE kind = 'suspense_return'"),
              QStringLiteral("1"));
    EXPECT_EQ(scalar("SELECT resolution IS NULL FROM keel.recon_breaks "
                     "WHERE class = 'missing_at_keel'"),
              QStringLiteral("t"))
        << "the data resolved it, not a person";
    expectBooksAgree();
}

// keel refunded, and the day's statement did not show it: past the lag, the
// money the channel still holds for it was parked. The refund's line comes in
// the next day's file: that day reopens the refund's, whose break resolves and
// whose case gives the money back.
TEST_F(ReconciliationTest, ALateRefundLineGivesBackWhatItsAbsenceParked)
{
    startGateway();
    const QByteArray paid = charge("amount=1500&currency=usd", "recon-late-refund");
    const HttpReply refunded =
        post("/v1/refunds", "charge=" + paid + "&amount=500", "recon-late-refund-r");
    ASSERT_EQ(refunded.status, 200) << refunded.body.constData();
    const QString refund = scalar("SELECT public_id FROM keel.refunds");
    ASSERT_EQ(backdateBooks(), QStringLiteral("2"));
    m_day = firstPostingDay();
    const QString next = QDate::fromString(m_day, Qt::ISODate).addDays(1).toString(Qt::ISODate);
    ASSERT_EQ(import(statement(QStringLiteral("day.csv"),
                               {item(paid, ",P1,payment,15.00,USD,0,%1T10:00:00Z")}))
                  .exitCode,
              0);
    EXPECT_EQ(breaks(run()), QStringList{QStringLiteral("missing_at_channel:%1:new").arg(refund)});
    ASSERT_EQ(suspense(), QStringLiteral("500"));

    ASSERT_EQ(import(statement(QStringLiteral("late.csv"),
                               {refund + QStringLiteral(",R1,refund,5.00,USD,0,%2T02:00:00Z")}))
                  .exitCode,
              0);
    const QJsonObject following = run(QStringLiteral("sim"), next);
    EXPECT_EQ(following.value(QStringLiteral("reopened")).toString(), m_day);
    EXPECT_EQ(scalar("SELECT status FROM keel.recon_breaks"), QStringLiteral("resolved"));
    EXPECT_EQ(scalar("SELECT status || ' ' || (resolution ->> 'kind') FROM keel.suspense_cases"),
              QStringLiteral("resolved recon_run"));
    EXPECT_EQ(suspense(), QStringLiteral("0"));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("1000"))
        << "taken 1500, refunded 500";
    expectBooksAgree();
}

} // namespace
