#include "ReconciliationFixture.h"
#include "WaitUntil.h"

#include "core/db/LibpqConnection.h"
#include "core/db/QtSqlConnections.h"
#include "core/ops/ActionDesk.h"
#include "core/ops/BreakResolutions.h"
#include "core/ops/CaseResolutions.h"
#include "core/read/ReconQuery.h"
#include "core/read/SuspenseQuery.h"

#include <QJsonDocument>
#include <QProcess>
#include <QSqlError>
#include <QSqlQuery>

#include <thread>

using namespace keel;
using keel::test::item;
using keel::test::keelBinary;
using keel::test::ProcessResult;
using keel::test::runKeel;
using keel::test::waitUntil;

namespace {

// Resolving a break by hand runs as production does: the service login
// imports and runs, an operator login proposes, an approver login approves,
// and the database decides what each may do and moves the money.
class BreakResolutionTest : public keel::test::ReconciliationTest {
protected:
    // keel captured 20.00, 30.00 and 15.00 USD; the channel reported the
    // first taken back whole, the second taken back by 10.00, the third not
    // at all, and 5.00 keel never booked. Past the lag, after the day's run:
    // the open breaks by reference.
    struct DisputedDay {
        QByteArray lost;
        QByteArray partly;
        QByteArray unpaid;
        QMap<QString, ReconBreakRow> open;
    };
    DisputedDay disputesLostWholeAndInPart()
    {
        DisputedDay day;
        day.lost = charge("amount=2000&currency=usd", "recon-lost");
        day.partly = charge("amount=3000&currency=usd", "recon-partly");
        day.unpaid = charge("amount=1500&currency=usd", "recon-unpaid");
        EXPECT_EQ(backdateBooks(), QStringLiteral("3"));
        m_day = firstPostingDay();
        EXPECT_EQ(import(statement(QStringLiteral("day.csv"),
                                   {item(day.lost, ",S1,payment,20.00,USD,0,%1T12:00:00Z"),
                                    item(day.lost, ",S1,reversal,20.00,USD,0,%1T13:00:00Z"),
                                    item(day.partly, ",S2,payment,30.00,USD,0,%1T12:00:00Z"),
                                    item(day.partly, ",S2,reversal,10.00,USD,0,%1T13:00:00Z"),
                                    QStringLiteral("ch_channelsOwn0003,S9,payment,5.00,USD,0,"
                                                   "%1T14:00:00Z")}))
                      .exitCode,
                  0);
        EXPECT_EQ(run().value(QStringLiteral("cases_opened")).toInt(), 4);
        EXPECT_EQ(suspense(), QStringLiteral("-4000"))
            << "5.00 keel never booked is held; 45.00 the channel does not show is owed";
        day.open = listed();
        const ReconBreakRow lostBreak = day.open.value(QString::fromUtf8(day.lost));
        const ReconBreakRow partlyBreak = day.open.value(QString::fromUtf8(day.partly));
        const ReconBreakRow unpaidBreak = day.open.value(QString::fromUtf8(day.unpaid));
        EXPECT_EQ(lostBreak.breakClass, QStringLiteral("status_mismatch"));
        EXPECT_EQ(partlyBreak.breakClass, QStringLiteral("amount_mismatch"));
        EXPECT_EQ(partlyBreak.channelAmount.amount, 2000);
        EXPECT_EQ(unpaidBreak.breakClass, QStringLiteral("missing_at_channel"));
        EXPECT_TRUE(BreakResolutions::canTakeBack(lostBreak));
        EXPECT_TRUE(BreakResolutions::canTakeBack(partlyBreak));
        EXPECT_FALSE(BreakResolutions::canTakeBack(unpaidBreak));
        EXPECT_FALSE(
            BreakResolutions::canTakeBack(day.open.value(QStringLiteral("ch_channelsOwn0003"))));
        return day;
    }

    // keel captured `paid` (20.00 USD); the channel reported it taken back,
    // a person took it back from the merchant, and then the statement was
    // withdrawn and a corrected one reports the payment alone. The run parks
    // the 20.00 the channel holds beyond keel in a case on the charge: that
    // case, as the workbench lists it.
    SuspenseCaseRow parkedAfterAWithdrawnTakeBack(const QByteArray &paid)
    {
        EXPECT_EQ(backdateBooks(), QStringLiteral("1"));
        m_day = firstPostingDay();
        EXPECT_EQ(import(statement(QStringLiteral("day.csv"),
                                   {item(paid, ",S1,payment,20.00,USD,0,%1T12:00:00Z"),
                                    item(paid, ",S1,reversal,20.00,USD,0,%1T13:00:00Z")}))
                      .exitCode,
                  0);
        run();
        const qint64 payable = balance(merchantPayable()).toLongLong();
        EXPECT_EQ(
            approveAndRun(BreakResolutions::takeBack(listed().value(QString::fromUtf8(paid)),
                                                     BreakResolutions::TakeBackBearer::Merchant))
                .applied,
            1);
        EXPECT_EQ(balance(merchantPayable()).toLongLong() - payable, 2000);
        auto statements = ReconQuery::statements(as(QStringLiteral("keel_operator")), 10);
        EXPECT_TRUE(statements.ok() && statements->size() == 1);
        if (!statements.ok() || statements->isEmpty())
            return {};
        EXPECT_EQ(approveAndRun(BreakResolutions::withdrawal(statements->first())).applied, 1);
        EXPECT_EQ(import(statement(QStringLiteral("corrected.csv"),
                                   {item(paid, ",S1,payment,20.00,USD,0,%1T12:00:00Z")}))
                      .exitCode,
                  0);
        run();
        EXPECT_EQ(suspense(), QStringLiteral("2000"));
        SuspenseCaseFilter filter;
        filter.chargeId = QString::fromUtf8(paid);
        const auto queue = SuspenseQuery::queue(as(QStringLiteral("keel_operator")), filter);
        EXPECT_TRUE(queue.ok() && queue->size() == 1);
        return queue.ok() && queue->size() == 1 ? queue->first() : SuspenseCaseRow{};
    }

    // What became of a resolution of `parked` run while another transaction
    // held the case's break, as a take-back holds it.
    struct RunWhileHeld {
        bool waited = false; // it waited on a lock while the break was held
        QString caseFree;    // "1" if the case could be taken meanwhile
        int applied = 0;     // once the break was let go
    };
    RunWhileHeld runWhileTheBreakIsHeld(const SuspenseCaseRow &parked,
                                        const ProposalRequest &request)
    {
        RunWhileHeld seen;
        const QByteArray caseId = QByteArray::number(parked.id);
        const QByteArray breakId =
            scalar("SELECT recon_break_id FROM keel.suspense_cases WHERE id = " + caseId)
                .toLatin1();
        const qint64 proposal = proposeAndApprove(request);
        auto holder = LibpqConnection::open(settings());
        if (breakId.isEmpty() || proposal == 0 || !holder.ok() ||
            !holder->exec("BEGIN; SELECT 1 FROM keel.recon_breaks WHERE id = " + breakId +
                          " FOR UPDATE"))
            return seen;
        const ConnectionSettings approver = loginAs(QStringLiteral("keel_approver"));
        std::thread running([&] { seen.applied = executeAsApprover(approver, proposal); });
        seen.waited = waitUntil([&] {
            return scalar("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                          "AND usename = '" +
                          approver.value(QStringLiteral("user")).toUtf8() + "'") ==
                   QLatin1String("1");
        });
        seen.caseFree = scalar("SELECT count(*) FROM (SELECT 1 FROM keel.suspense_cases "
                               "WHERE id = " +
                               caseId + " FOR UPDATE NOWAIT) free");
        (void)holder->exec("COMMIT");
        running.join();
        return seen;
    }

    void setSettlementLag(const QByteArray &lag)
    {
        scalar("UPDATE keel.recon_channels SET settlement_lag = '" + lag +
               "' WHERE channel = 'sim' RETURNING 1");
    }

    // What the gateway's housekeeping does, as the service login: the
    // acceptances ended, as text.
    QString endAcceptancesAsTheService()
    {
        auto service = LibpqConnection::open(m_serviceLogin);
        if (!service.ok())
            return service.error().message;
        auto ended = service->scalar("SELECT keel.recon_expire_acceptances()");
        return ended.ok() ? *ended : ended.error().message;
    }

    static ReconBreakRow ofClass(const QMap<QString, ReconBreakRow> &open, const char *breakClass)
    {
        for (const ReconBreakRow &row : open)
            if (row.breakClass == QLatin1String(breakClass))
                return row;
        return {};
    }

    // keel's capture of 15.00 USD whose answer carried no id of the
    // channel's (keel learns it later): keel's charge id and the channel's.
    std::pair<QByteArray, QString> chargeWithItsIdNotYetKnown(const QByteArray &key)
    {
        const QByteArray paid = charge("amount=1500&currency=usd", key);
        const QString id = scalar("SELECT channel_reference FROM keel.charges");
        EXPECT_TRUE(id.startsWith(QLatin1String("sim_"))) << qPrintable(id);
        setChannelReference("NULL");
        EXPECT_EQ(backdateBooks(), QStringLiteral("1"));
        m_day = firstPostingDay();
        return {paid, id};
    }

    void setChannelReference(const QByteArray &value)
    {
        EXPECT_EQ(scalar("WITH u AS (UPDATE keel.charges SET channel_reference = " + value +
                         " RETURNING 1) SELECT count(*) FROM u"),
                  QStringLiteral("1"));
    }
};

// The channel reported keel's capture under a reference keel never sent: a
// missing_at_keel (whose money was parked) and a missing_at_channel that are
// one movement. Matched by hand, both resolve, the parked money returns to
// clearing once, and later runs keep them resolved.
TEST_F(BreakResolutionTest, AMatchByHandReturnsTheParkedMoneyOnceAndLaterRunsKeepIt)
{
    startGateway();
    const QByteArray paid =
        oneMovementAsTwoBreaks("recon-match", QStringLiteral("ch_channelsOwn0001"));
    ASSERT_FALSE(HasFailure());

    QMap<QString, ReconBreakRow> open = listed();
    const ReconBreakRow atKeel = open.value(QStringLiteral("ch_channelsOwn0001"));
    const ReconBreakRow atChannel = open.value(QString::fromUtf8(paid));
    ASSERT_TRUE(BreakResolutions::canMatch(atKeel, atChannel));

    // The proposer cannot approve their own match.
    ActionDesk maker(as(QStringLiteral("keel_operator")));
    auto own = maker.propose(because(BreakResolutions::match(atKeel, atChannel)));
    ASSERT_TRUE(own.ok()) << qPrintable(own.error().message);
    const Status selfApproved = maker.approve(own->id, own->contentHash);
    EXPECT_FALSE(selfApproved.ok());
    EXPECT_EQ(selfApproved.error().code, QLatin1String("42501"));
    ActionDesk checker(as(QStringLiteral("keel_approver")));
    ASSERT_TRUE(checker.approve(own->id, own->contentHash).ok());
    auto executed = checker.execute(own->id);
    ASSERT_TRUE(executed.ok()) << qPrintable(executed.error().message);
    EXPECT_EQ(executed->applied, 2);

    EXPECT_EQ(statusOf(QStringLiteral("ch_channelsOwn0001")), QStringLiteral("resolved"));
    EXPECT_EQ(statusOf(QString::fromUtf8(paid)), QStringLiteral("resolved"));
    EXPECT_EQ(suspense(), QStringLiteral("0"));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("2000"))
        << "the capture once, the parked copy returned";
    EXPECT_EQ(scalar("SELECT string_agg(status, ',' ORDER BY id) FROM keel.suspense_cases"),
              QStringLiteral("resolved,resolved"));
    expectBooksAgree();

    // Running it again, or the day again, moves nothing twice.
    auto replay = checker.execute(own->id);
    ASSERT_TRUE(replay.ok());
    EXPECT_TRUE(replay->replayed);
    const QJsonObject again = run();
    EXPECT_EQ(again.value(QStringLiteral("cases_opened")).toInt(), 0);
    EXPECT_EQ(breaks(again),
              (QStringList{
                  QStringLiteral("missing_at_keel:ch_channelsOwn0001:resolved"),
                  QStringLiteral("missing_at_channel:%1:resolved").arg(QString::fromUtf8(paid))}));
    EXPECT_EQ(suspense(), QStringLiteral("0"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_transactions WHERE kind = 'adjustment'"),
              QStringLiteral("1"));
    EXPECT_TRUE(listed().isEmpty());
    expectBooksAgree();

    // The channel then reports the payment under keel's reference too: the
    // line matched by hand is an extra report, raised again.
    ASSERT_EQ(import(statement(QStringLiteral("again.csv"),
                               {item(paid, ",S2,payment,20.00,USD,0,%1T13:00:00Z")}))
                  .exitCode,
              0);
    const QJsonObject raised = run();
    EXPECT_EQ(breaks(raised),
              QStringList{QStringLiteral("missing_at_keel:ch_channelsOwn0001:new")});
    EXPECT_EQ(listed().value(QStringLiteral("ch_channelsOwn0001")).channelAmount.amount, 2000);
    // Its money is parked again, under a case of its own.
    EXPECT_EQ(raised.value(QStringLiteral("cases_opened")).toInt(), 1);
    EXPECT_EQ(suspense(), QStringLiteral("2000"));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("4000"))
        << "what the channel says it moved: the payment twice";
    expectBooksAgree();
}

// A case a person settled took its money out of suspense for good; a match
// of its break, raised again since (by a withdrawal, a further difference, a
// change of amounts), would return that money to clearing a second time. The
// database refuses it however long ago the case closed (migration 0051).
TEST_F(BreakResolutionTest, AMatchNeverMovesMoneyACaseAlreadySettled)
{
    startGateway();
    const QByteArray paid =
        oneMovementAsTwoBreaks("recon-settled-match", QStringLiteral("ch_channelsOwn0003"));
    ASSERT_FALSE(HasFailure());
    ASSERT_EQ(approveAndRun(writeOffOfCaseOf("ch_channelsOwn0003")).applied, 1);
    ASSERT_EQ(statusOf(QStringLiteral("ch_channelsOwn0003")), QStringLiteral("resolved"));
    // Raised after the write-off, as a later run raises it.
    ASSERT_EQ(scalar("UPDATE keel.recon_breaks b SET status = 'persisting', resolution = NULL, "
                     "resolved_at = NULL WHERE reference = 'ch_channelsOwn0003' RETURNING "
                     "b.raised_at > (SELECT max(resolved_at) FROM keel.suspense_cases k "
                     "WHERE k.recon_break_id = b.id)"),
              QStringLiteral("t"));

    const QMap<QString, ReconBreakRow> open = listed();
    const QString refused = refusalOf(BreakResolutions::match(
        open.value(QStringLiteral("ch_channelsOwn0003")), open.value(QString::fromUtf8(paid))));
    EXPECT_TRUE(refused.contains(QLatin1String("already moved its money"))) << qPrintable(refused);
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("2000"));
    expectBooksAgree();
}

// A match executed while a run of its day is under way: the run read the day
// before the match committed and takes the day's breaks after it. Taking
// them then conflicts (SQLSTATE 40001), and the run runs again from the
// books as they now stand: the match stands, and the parked money went back
// to clearing once. The run is stopped between its read and its write by a
// third break of the day, whose id is the lowest, held by the test: a run
// takes its day's breaks in id order (migration 0047).
TEST_F(BreakResolutionTest, AMatchCommittedWhileARunIsUnderWayStandsAndMovesMoneyOnce)
{
    startGateway();
    const QByteArray paid = charge("amount=2000&currency=usd", "recon-race");
    ASSERT_EQ(backdateBooks(), QStringLiteral("1"));
    m_day = firstPostingDay();
    ASSERT_EQ(import(statement(QStringLiteral("day.csv"),
                               {QStringLiteral("ch_aaHeldByTheTest1,S0,payment,1.00,USD,0,"
                                               "%1T11:00:00Z"),
                                QStringLiteral("ch_channelsOwn0009,S1,payment,20.00,USD,0,"
                                               "%1T12:00:00Z")}))
                  .exitCode,
              0);
    ASSERT_EQ(run().value(QStringLiteral("cases_opened")).toInt(), 3);
    ASSERT_EQ(suspense(), QStringLiteral("100")) << "21.00 held, 20.00 owed";
    const QMap<QString, ReconBreakRow> open = listed();
    const qint64 lowest = open.value(QStringLiteral("ch_aaHeldByTheTest1")).id;
    ASSERT_EQ(scalar("SELECT min(id) FROM keel.recon_breaks").toLongLong(), lowest);
    auto proposal =
        ActionDesk(as(QStringLiteral("keel_operator")))
            .propose(
                because(BreakResolutions::match(open.value(QStringLiteral("ch_channelsOwn0009")),
                                                open.value(QString::fromUtf8(paid)))));
    ASSERT_TRUE(proposal.ok()) << qPrintable(proposal.error().message);
    ActionDesk checker(as(QStringLiteral("keel_approver")));
    ASSERT_TRUE(checker.approve(proposal->id, proposal->contentHash).ok());

    auto holder = LibpqConnection::open(settings());
    ASSERT_TRUE(holder.ok());
    ASSERT_TRUE(holder
                    ->exec("BEGIN; SELECT 1 FROM keel.recon_breaks WHERE id = " +
                           QByteArray::number(lowest) + " FOR UPDATE")
                    .ok());
    QProcess running;
    running.start(keelBinary(),
                  {QStringLiteral("recon"), QStringLiteral("run"), QStringLiteral("--channel"),
                   QStringLiteral("sim"), QStringLiteral("--date"), m_day, QStringLiteral("--json"),
                   QStringLiteral("--db"), m_service});
    ASSERT_TRUE(waitUntil(
        [&] {
            return scalar("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                          "AND usename = '" +
                          m_serviceLogin.value(QStringLiteral("user")).toUtf8() + "'") ==
                   QLatin1String("1");
        },
        20000))
        << "the run never reached its write";
    auto executed = checker.execute(proposal->id);
    ASSERT_TRUE(executed.ok()) << qPrintable(executed.error().message);
    EXPECT_EQ(executed->applied, 2);
    ASSERT_TRUE(holder->exec("COMMIT").ok());
    ASSERT_TRUE(running.waitForFinished(60000));
    const QByteArray err = running.readAllStandardError();
    ASSERT_EQ(running.exitCode(), 0) << err.constData();
    const QJsonObject result = QJsonDocument::fromJson(running.readAllStandardOutput()).object();
    EXPECT_EQ(breaks(result),
              (QStringList{
                  QStringLiteral("missing_at_keel:ch_aaHeldByTheTest1:persisting"),
                  QStringLiteral("missing_at_keel:ch_channelsOwn0009:resolved"),
                  QStringLiteral("missing_at_channel:%1:resolved").arg(QString::fromUtf8(paid))}));
    EXPECT_EQ(result.value(QStringLiteral("cases_opened")).toInt(), 0);
    EXPECT_EQ(scalar("SELECT count(*) || ' ' || max(id) FROM keel.recon_runs"),
              QStringLiteral("2 2"))
        << "the attempt that conflicted wrote nothing; its retry is run 2";
    EXPECT_EQ(suspense(), QStringLiteral("100"));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("2100"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_transactions WHERE kind = 'adjustment'"),
              QStringLiteral("1"));
    expectBooksAgree();
}

// What is not one movement, a date too far, a fee adjustment of what is not a
// fee: refused when proposed, naming why, with nothing stored. A resolution
// of a break a run rewrote since does nothing.
TEST_F(BreakResolutionTest, TheDatabaseRefusesWhatDoesNotFitAndWhatChangedSince)
{
    startGateway();
    const QByteArray paid = charge("amount=2000&currency=usd", "recon-refuse");
    ASSERT_EQ(backdateBooks(), QStringLiteral("1"));
    m_day = firstPostingDay();
    ASSERT_EQ(import(statement(QStringLiteral("day.csv"),
                               {QStringLiteral("ch_channelsOwn0002,S1,payment,19.99,USD,0,"
                                               "%1T12:00:00Z")}))
                  .exitCode,
              0);
    run();
    QMap<QString, ReconBreakRow> open = listed();
    const ReconBreakRow atKeel = open.value(QStringLiteral("ch_channelsOwn0002"));
    ReconBreakRow atChannel = open.value(QString::fromUtf8(paid));
    ASSERT_EQ(atChannel.status, QStringLiteral("new"));

    ActionDesk maker(as(QStringLiteral("keel_operator")));
    auto notOne = maker.propose(because(BreakResolutions::match(atKeel, atChannel)));
    ASSERT_FALSE(notOne.ok());
    EXPECT_EQ(notOne.error().code, QLatin1String(ActionErrorCode::Invalid));
    EXPECT_TRUE(notOne.error().message.contains(QLatin1String("not one movement")))
        << qPrintable(notOne.error().message);
    auto tooFar =
        maker.propose(because(BreakResolutions::accept(atKeel, QDate::currentDate().addDays(120))));
    ASSERT_FALSE(tooFar.ok());
    EXPECT_TRUE(tooFar.error().message.contains(QLatin1String("90 days")))
        << qPrintable(tooFar.error().message);
    auto notAFee = maker.propose(because(BreakResolutions::feeAdjustment(atKeel)));
    ASSERT_FALSE(notAFee.ok());
    EXPECT_TRUE(notAFee.error().message.contains(QLatin1String("fee_variance")))
        << qPrintable(notAFee.error().message);
    ReconBreakRow leadingZero = atKeel;
    leadingZero.id = 0;
    ProposalRequest padded = BreakResolutions::match(leadingZero, atChannel);
    padded.targets.first().id = QStringLiteral("0") + QString::number(atKeel.id);
    EXPECT_FALSE(maker.propose(because(padded)).ok()) << "a break is named by its number";
    EXPECT_FALSE(
        ActionDesk(as(QStringLiteral("keel_sre")))
            .propose(because(BreakResolutions::accept(atKeel, QDate::currentDate().addDays(5))))
            .ok());
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.operator_actions"), QStringLiteral("0"));

    // Proposed, then the day is run again before it executes: the break's
    // row is not what the proposer saw.
    auto accept =
        maker.propose(because(BreakResolutions::accept(atKeel, QDate::currentDate().addDays(5))));
    ASSERT_TRUE(accept.ok()) << qPrintable(accept.error().message);
    run();
    ActionDesk checker(as(QStringLiteral("keel_approver")));
    ASSERT_TRUE(checker.approve(accept->id, accept->contentHash).ok());
    auto executed = checker.execute(accept->id);
    ASSERT_TRUE(executed.ok()) << qPrintable(executed.error().message);
    EXPECT_EQ(executed->applied, 0);
    ASSERT_EQ(executed->targets.size(), 1);
    EXPECT_EQ(executed->targets.first().outcome, QStringLiteral("changed"));
    EXPECT_EQ(statusOf(QStringLiteral("ch_channelsOwn0002")), QStringLiteral("persisting"));
}

// The service writes what its runs find, never a person's decision, and
// since migration 0031 no break or run outside keel.recon_record_run(), which
// writes them from the run's result, hashed and on the audit chain (called,
// since migration 0047, only through recon_record_run_in_break_order()).
TEST_F(BreakResolutionTest, TheServiceWritesNoBreakOrRunOutsideARun)
{
    auto service = LibpqConnection::open(m_serviceLogin);
    ASSERT_TRUE(service.ok());
    const Status forged =
        service->exec("UPDATE keel.recon_breaks SET status = 'resolved', resolved_at = now(), "
                      "resolution = '{\"kind\": \"recon_break.match\"}'");
    ASSERT_FALSE(forged.ok());
    EXPECT_EQ(forged.error().code, QLatin1String("42501"));
    for (const char *outsideARun :
         {"UPDATE keel.recon_breaks SET status = 'resolved', resolved_at = now()",
          "UPDATE keel.recon_breaks SET status = 'pending'",
          "INSERT INTO keel.recon_runs (channel, business_date, matched, breaks, result_sha256, "
          "result) VALUES ('sim', current_date, 0, 0, sha256(''), '{}')",
          // Cases open only from a run whose day's lag has passed.
          "SELECT keel.recon_open_cases('sim', current_date)",
          // A run takes its day's breaks in id order before it writes.
          "SELECT keel.recon_record_run('sim', current_date, '{}', 0)",
          // A run counts a take-back as a person's decision.
          "INSERT INTO keel.ledger_transactions (kind, description) "
          "VALUES ('channel_takeback', 'no second person')"}) {
        const Status refused = service->exec(outsideARun);
        ASSERT_FALSE(refused.ok()) << outsideARun;
        EXPECT_EQ(refused.error().code, QLatin1String("42501")) << outsideARun;
    }
    const Status misnamed = service->exec(
        "SELECT keel.recon_record_run_in_break_order('sim', current_date, '{\"channel\": \"sim\", "
        "\"date\": \"1999-01-01\", \"matched\": 0, \"breaks\": []}', 0)");
    ASSERT_FALSE(misnamed.ok()) << "a result is recorded only for its own day";
    EXPECT_EQ(misnamed.error().code, QLatin1String("22023"));
}

// Accepted until a date, a break leaves the unexplained difference and opens
// no case; once the date has passed, a run raises it again and its case
// opens. Closing that case in the workbench resolves the break for good.
TEST_F(BreakResolutionTest, AnAcceptedBreakOpensNoCaseUntilItsDateThenItsCaseClosesIt)
{
    startGateway();
    charge("amount=500&currency=usd", "recon-accept");
    ASSERT_EQ(backdateBooks(), QStringLiteral("1"));
    m_day = firstPostingDay();
    // A week's lag first, so that the breaks are found before any case opens.
    setSettlementLag("7 days");
    ASSERT_EQ(import(statement(QStringLiteral("day.csv"),
                               {QStringLiteral("ch_neverSeen000009,S1,payment,3.00,USD,0,"
                                               "%1T12:00:00Z")}))
                  .exitCode,
              0);
    EXPECT_EQ(run().value(QStringLiteral("cases_opened")).toInt(), 0);
    const QMap<QString, ReconBreakRow> open = listed();
    const ReconBreakRow invented = open.value(QStringLiteral("ch_neverSeen000009"));
    ASSERT_EQ(invented.status, QStringLiteral("new"));
    const ReconBreakRow unreported = ofClass(open, "missing_at_channel");
    ASSERT_EQ(unreported.status, QStringLiteral("pending"));
    auto early = ActionDesk(as(QStringLiteral("keel_operator")))
                     .propose(because(
                         BreakResolutions::accept(unreported, QDate::currentDate().addDays(5))));
    ASSERT_FALSE(early.ok());
    EXPECT_TRUE(early.error().message.contains(QLatin1String("pending")))
        << qPrintable(early.error().message);

    const ActionExecution accepted =
        approveAndRun(BreakResolutions::accept(invented, QDate::currentDate().addDays(10)));
    EXPECT_EQ(accepted.applied, 1);
    EXPECT_EQ(statusOf(QStringLiteral("ch_neverSeen000009")), QStringLiteral("accepted"));
    auto runs = ReconQuery::runs(as(QStringLiteral("keel_auditor")), 10);
    ASSERT_TRUE(runs.ok() && runs->size() == 1);
    ASSERT_EQ(runs->first().difference.size(), 1);
    EXPECT_EQ(runs->first().difference.first().amount, -500)
        << "only the charge the channel has not reported is unexplained";

    // The lag passes: the charge's break opens its case, the accepted one none.
    setSettlementLag("1 day");
    const QJsonObject lagOver = run();
    EXPECT_EQ(lagOver.value(QStringLiteral("cases_opened")).toInt(), 1);
    EXPECT_TRUE(
        breaks(lagOver).contains(QStringLiteral("missing_at_keel:ch_neverSeen000009:accepted")));
    EXPECT_EQ(suspense(), QStringLiteral("-500")) << "the capture parked as owed";

    // The date passes (moved back here rather than waited for).
    scalar("UPDATE keel.recon_breaks SET accepted_until = now() - interval '1 minute' "
           "WHERE status = 'accepted' RETURNING 1");
    // It is open again whether or not its day runs (the gateway's housekeeping
    // ends acceptances as it refreshes the gauges)...
    EXPECT_EQ(endAcceptancesAsTheService(), QStringLiteral("1"));
    EXPECT_EQ(statusOf(QStringLiteral("ch_neverSeen000009")), QStringLiteral("persisting"));
    // ...and its day's next run opens its case.
    const QJsonObject expired = run();
    EXPECT_EQ(expired.value(QStringLiteral("cases_opened")).toInt(), 1);
    EXPECT_TRUE(
        breaks(expired).contains(QStringLiteral("missing_at_keel:ch_neverSeen000009:persisting")));
    EXPECT_EQ(suspense(), QStringLiteral("-200"));

    // Written off in the workbench, the case that held money resolves its
    // break for good; the charge's owed case written off is a loss, and the
    // charge, holding nothing the channel does not show, then reconciles.
    EXPECT_EQ(approveAndRun(writeOffOfCaseOf("ch_neverSeen000009")).applied, 1);
    EXPECT_EQ(statusOf(QStringLiteral("ch_neverSeen000009")), QStringLiteral("resolved"));
    EXPECT_EQ(approveAndRun(writeOffOfCaseOf(unreported.reference.toUtf8())).applied, 1);
    const QJsonObject after = run();
    EXPECT_EQ(breaks(after),
              QStringList{QStringLiteral("missing_at_keel:ch_neverSeen000009:resolved")});
    EXPECT_EQ(statusOf(unreported.reference), QStringLiteral("resolved"));
    EXPECT_EQ(after.value(QStringLiteral("cases_opened")).toInt(), 0);
    EXPECT_EQ(suspense(), QStringLiteral("0"));
    EXPECT_EQ(balance("suspense_write_off:USD"), QStringLiteral("200")) << "5.00 lost, 3.00 gained";
    expectBooksAgree();
}

// A fee the channel took beyond its contract is booked as a claim on the
// channel; the fee_variance resolves and stays resolved.
TEST_F(BreakResolutionTest, AFeeAdjustmentBooksTheExcessAsAClaimOnTheChannel)
{
    startGateway();
    const QByteArray paid = charge("amount=1000&currency=usd", "recon-fee");
    m_day = firstPostingDay();
    ASSERT_EQ(recon({QStringLiteral("fee-rate"), QStringLiteral("--channel"), QStringLiteral("sim"),
                     QStringLiteral("--ppm"), QStringLiteral("6000")})
                  .exitCode,
              0);
    ASSERT_EQ(import(statement(QStringLiteral("day.csv"),
                               {item(paid, ",S1,payment,10.00,USD,0.10,%1T12:00:00Z")}))
                  .exitCode,
              0);
    EXPECT_EQ(breaks(run()),
              QStringList{QStringLiteral("fee_variance:%1:new").arg(QString::fromUtf8(paid))});
    EXPECT_EQ(balance("channel_fees:sim:USD"), QStringLiteral("10"));

    const ReconBreakRow variance = listed().value(QString::fromUtf8(paid));
    ASSERT_TRUE(BreakResolutions::canAdjustFee(variance));
    EXPECT_EQ(approveAndRun(BreakResolutions::feeAdjustment(variance)).applied, 1);
    EXPECT_EQ(balance("channel_fee_claims:sim:USD"), QStringLiteral("4"));
    EXPECT_EQ(balance("channel_fees:sim:USD"), QStringLiteral("6")) << "the contracted 0.6 %";
    EXPECT_EQ(breaks(run()),
              QStringList{QStringLiteral("fee_variance:%1:resolved").arg(QString::fromUtf8(paid))});
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_transactions WHERE kind = 'fee_adjustment'"),
              QStringLiteral("1"));
    expectBooksAgree();

    // The contract changes to 0.7 %: the variance is raised at its new size,
    // and adjusting it again books only what the first adjustment did not.
    ASSERT_EQ(recon({QStringLiteral("fee-rate"), QStringLiteral("--channel"), QStringLiteral("sim"),
                     QStringLiteral("--ppm"), QStringLiteral("7000")})
                  .exitCode,
              0);
    EXPECT_EQ(breaks(run()),
              QStringList{QStringLiteral("fee_variance:%1:new").arg(QString::fromUtf8(paid))});
    EXPECT_EQ(
        approveAndRun(BreakResolutions::feeAdjustment(listed().value(QString::fromUtf8(paid))))
            .applied,
        1);
    EXPECT_EQ(balance("channel_fee_claims:sim:USD"), QStringLiteral("3"));
    EXPECT_EQ(balance("channel_fees:sim:USD"), QStringLiteral("7"));
    expectBooksAgree();
}

// A dispute lost whole and one lost in part leave keel holding more than
// the channel: the operator takes it back, from the merchant or as the
// company's loss, through a second person. The clearing account then holds
// what the channel holds, the day matches, and one break's money is taken
// back once however often it is proposed. A capture the channel never
// reported is not taken back: it may yet come, or under the channel's id.
TEST_F(BreakResolutionTest, WhatTheChannelTookBackIsTakenFromTheMerchantOrAsALossOnce)
{
    startGateway();
    const DisputedDay day = disputesLostWholeAndInPart();
    const ReconBreakRow lostBreak = day.open.value(QString::fromUtf8(day.lost));
    const ReconBreakRow partlyBreak = day.open.value(QString::fromUtf8(day.partly));
    const QByteArray payable = merchantPayable();
    EXPECT_EQ(balance(payable), QStringLiteral("-6500"));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("2500"))
        << "65.00 captured and 5.00 held, less 45.00 owed";

    // Two proposals for the lost dispute, both approved: the first takes the
    // money back, the second finds the break changed.
    const qint64 fromMerchant = proposeAndApprove(
        BreakResolutions::takeBack(lostBreak, BreakResolutions::TakeBackBearer::Merchant));
    const qint64 asLoss = proposeAndApprove(
        BreakResolutions::takeBack(lostBreak, BreakResolutions::TakeBackBearer::Loss));
    ASSERT_TRUE(fromMerchant && asLoss);
    EXPECT_EQ(runApproved(fromMerchant).applied, 1);
    const ActionExecution second = runApproved(asLoss);
    EXPECT_EQ(second.applied, 0);
    EXPECT_EQ(onlyTarget(second).outcome, QStringLiteral("changed"));

    EXPECT_EQ(approveAndRun(
                  BreakResolutions::takeBack(partlyBreak, BreakResolutions::TakeBackBearer::Loss))
                  .applied,
              1);
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("2500"))
        << "20.00 and 10.00 returned from their owed cases and taken back";
    EXPECT_EQ(balance(payable), QStringLiteral("-4500")) << "the merchant bears the lost one";
    EXPECT_EQ(balance("operational_loss:USD"), QStringLiteral("1000"));
    EXPECT_EQ(suspense(), QStringLiteral("-1000")) << "5.00 held, 15.00 owed";
    EXPECT_EQ(statusOf(QString::fromUtf8(day.lost)), QStringLiteral("resolved"));
    EXPECT_EQ(statusOf(QString::fromUtf8(day.partly)), QStringLiteral("resolved"));
    EXPECT_EQ(scalar("SELECT string_agg(k.status, ',' ORDER BY b.reference) FROM "
                     "keel.suspense_cases k JOIN keel.recon_breaks b ON b.id = k.recon_break_id "
                     "WHERE b.reference IN ('" +
                     day.lost + "', '" + day.partly + "')"),
              QStringLiteral("resolved,resolved"));

    // The day's next run finds keel holding what the channel holds, the
    // unpaid charge's capture parked as owed too.
    const QJsonObject again = run();
    EXPECT_EQ(breaks(again),
              QStringList{QStringLiteral("missing_at_keel:ch_channelsOwn0003:persisting")});
    EXPECT_EQ(again.value(QStringLiteral("matched")).toInt(), 3);
    expectBooksAgree();

    // Nothing is taken back twice, nor a payment the channel never reported.
    const QString resolved = refusalOf(
        BreakResolutions::takeBack(lostBreak, BreakResolutions::TakeBackBearer::Merchant));
    EXPECT_TRUE(resolved.contains(QLatin1String("resolved"))) << qPrintable(resolved);
    const QString notReported = refusalOf(BreakResolutions::takeBack(
        day.open.value(QString::fromUtf8(day.unpaid)), BreakResolutions::TakeBackBearer::Loss));
    EXPECT_TRUE(notReported.contains(QLatin1String("resolved"))) << qPrintable(notReported);
    EXPECT_EQ(takeBacksPosted(), QStringLiteral("2"));
}

// A customer who won a dispute has the money from the chargeback: once it is
// taken back, a refund may ask only for what the channel left of the charge.
// The gateway answers charge_disputed, and the database refuses the service
// login whatever it writes (migration 0043).
TEST_F(BreakResolutionTest, ATakenBackChargeIsRefundedNoMoreThanTheChannelLeft)
{
    startGateway();
    const DisputedDay day = disputesLostWholeAndInPart();
    // Seen by a run and not yet booked, the dispute holds the refund back too.
    const HttpReply seen = post("/v1/refunds", "charge=" + day.lost, "refund-lost-seen");
    EXPECT_EQ(seen.status, 400) << seen.body.constData();
    EXPECT_TRUE(seen.body.contains("charge_disputed")) << seen.body.constData();
    ASSERT_EQ(approveAndRun(BreakResolutions::takeBack(day.open.value(QString::fromUtf8(day.lost)),
                                                       BreakResolutions::TakeBackBearer::Merchant))
                  .applied,
              1);
    ASSERT_EQ(
        approveAndRun(BreakResolutions::takeBack(day.open.value(QString::fromUtf8(day.partly)),
                                                 BreakResolutions::TakeBackBearer::Loss))
            .applied,
        1);
    const QString clearing = balance("channel_clearing:USD");

    const HttpReply whole = post("/v1/refunds", "charge=" + day.lost, "refund-lost");
    EXPECT_EQ(whole.status, 400) << whole.body.constData();
    EXPECT_TRUE(whole.body.contains("charge_disputed")) << whole.body.constData();
    const HttpReply tooMuch =
        post("/v1/refunds", "charge=" + day.partly + "&amount=2001", "refund-partly-2001");
    EXPECT_EQ(tooMuch.status, 400) << tooMuch.body.constData();
    EXPECT_TRUE(tooMuch.body.contains("2000 of it can still be refunded"))
        << tooMuch.body.constData();
    EXPECT_EQ(balance("channel_clearing:USD"), clearing) << "nothing moved";

    // Without an amount, what the channel left; then nothing more.
    const HttpReply rest = post("/v1/refunds", "charge=" + day.partly, "refund-partly-rest");
    ASSERT_EQ(rest.status, 200) << rest.body.constData();
    EXPECT_EQ(QJsonDocument::fromJson(rest.body).object().value(QStringLiteral("amount")).toInt(),
              2000);
    EXPECT_EQ(balance("channel_clearing:USD"), QString::number(clearing.toLongLong() - 2000));
    EXPECT_EQ(post("/v1/refunds", "charge=" + day.partly + "&amount=1", "refund-partly-1").status,
              400);

    // The rule is the database's: the service login cannot write around it.
    auto service = LibpqConnection::open(m_serviceLogin);
    ASSERT_TRUE(service.ok());
    const Status forged = service->exec(
        "INSERT INTO keel.refunds (public_id, charge_id, out_refund_no, amount, currency, "
        "channel, request_hash) SELECT 're_forged', id, 'forged', 1, currency, channel, "
        "'\\x00' FROM keel.charges WHERE public_id = '" +
        day.lost + "'");
    ASSERT_FALSE(forged.ok());
    EXPECT_EQ(forged.error().code, QLatin1String("KL426"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.refunds"), QStringLiteral("1"));
    expectBooksAgree();
}

// A dispute a run sees between the gateway's read of what the channel
// withheld and the refund's insert: the database refuses the refund under the
// charge's lock, and the gateway, asking again, answers charge_disputed
// rather than a 503 the client would only retry.
TEST_F(BreakResolutionTest, ADisputeSeenWhileARefundIsBeingWrittenAnswersChargeDisputed)
{
    startGateway();
    const QByteArray paid = charge("amount=2000&currency=usd", "recon-racing");
    ASSERT_EQ(backdateBooks(), QStringLiteral("1"));
    m_day = firstPostingDay();
    ASSERT_EQ(import(statement(QStringLiteral("day.csv"),
                               {item(paid, ",S1,payment,20.00,USD,0,%1T12:00:00Z"),
                                item(paid, ",S1,reversal,20.00,USD,0,%1T13:00:00Z")}))
                  .exitCode,
              0);

    // Holding the refunds table makes the refund wait at its insert, after
    // the gateway read nothing withheld; the run does not need it.
    auto holder = LibpqConnection::open(settings());
    ASSERT_TRUE(holder.ok());
    ASSERT_TRUE(holder->exec("BEGIN").ok());
    ASSERT_TRUE(holder->exec("LOCK TABLE keel.refunds IN SHARE MODE").ok());
    HttpReply refused;
    std::thread refunding([&] {
        refused =
            post("/v1/refunds", "charge=" + paid, "refund-racing", {},
                 clientFor(QStringLiteral("http://127.0.0.1:%1").arg(m_gateway->port())).get());
    });
    const bool waiting = waitUntil(
        [&] {
            return scalar("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                          "AND query LIKE '%keel.refunds%'") == QLatin1String("1");
        },
        30000);
    EXPECT_TRUE(waiting) << "the refund never waited for the charge";
    const QJsonObject seen = run();
    (void)holder->exec("COMMIT");
    refunding.join();
    ASSERT_TRUE(waiting);
    const QStringList found = breaks(seen);
    ASSERT_EQ(found.size(), 1);
    EXPECT_TRUE(found[0].startsWith(QLatin1String("status_mismatch:" + paid)))
        << qPrintable(found[0]);

    EXPECT_EQ(refused.status, 400) << refused.body.constData();
    EXPECT_TRUE(refused.body.contains("charge_disputed")) << refused.body.constData();
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.refunds"), QStringLiteral("0"));
    EXPECT_EQ(scalar("SELECT state FROM keel.payment_state p JOIN keel.charges c ON c.id = "
                     "p.charge_id WHERE c.public_id = '" +
                     paid + "'"),
              QStringLiteral("Captured"));
    // The key keeps that answer.
    const HttpReply again = post("/v1/refunds", "charge=" + paid, "refund-racing");
    EXPECT_EQ(again.status, 400);
    EXPECT_EQ(again.body, refused.body);
    expectBooksAgree();
}

// A dispute the merchant contests is held as an accepted break, for weeks: the
// channel holds the money meanwhile, and no refund gives it out again.
TEST_F(BreakResolutionTest, AnAcceptedDisputeHoldsTheRefundBackToo)
{
    startGateway();
    const DisputedDay day = disputesLostWholeAndInPart();
    ASSERT_EQ(approveAndRun(BreakResolutions::accept(day.open.value(QString::fromUtf8(day.partly)),
                                                     QDate::currentDate().addDays(30)))
                  .applied,
              1);
    ASSERT_EQ(statusOf(QString::fromUtf8(day.partly)), QStringLiteral("accepted"));
    const HttpReply contested =
        post("/v1/refunds", "charge=" + day.partly + "&amount=2001", "refund-partly-contested");
    EXPECT_EQ(contested.status, 400) << contested.body.constData();
    EXPECT_TRUE(contested.body.contains("2000 of it can still be refunded"))
        << contested.body.constData();
    EXPECT_EQ(
        post("/v1/refunds", "charge=" + day.partly + "&amount=2000", "refund-partly-left").status,
        200);
}

// A refund the channel paid before its statement showed the dispute gave the
// customer the money once already: the charge holds nothing more to take back.
TEST_F(BreakResolutionTest, ARefundPaidBeforeTheDisputeShowedIsNotTakenBackAgain)
{
    startGateway();
    const QByteArray paid = charge("amount=2000&currency=usd", "recon-refunded");
    const QByteArray refunded = refund("charge=" + paid, "recon-refunded-all");
    ASSERT_EQ(backdateBooks(), QStringLiteral("2"));
    m_day = firstPostingDay();
    ASSERT_EQ(import(statement(QStringLiteral("day.csv"),
                               {item(paid, ",S1,payment,20.00,USD,0,%1T12:00:00Z"),
                                item(refunded, ",S2,refund,20.00,USD,0,%1T12:30:00Z"),
                                item(paid, ",S1,reversal,20.00,USD,0,%1T13:00:00Z")}))
                  .exitCode,
              0);
    run();
    const ReconBreakRow disputed = listed().value(QString::fromUtf8(paid));
    ASSERT_EQ(disputed.breakClass, QStringLiteral("status_mismatch"));
    const QString clearing = balance("channel_clearing:USD");
    const QString refused =
        refusalOf(BreakResolutions::takeBack(disputed, BreakResolutions::TakeBackBearer::Merchant));
    EXPECT_TRUE(refused.contains(QLatin1String("left after its refunds"))) << qPrintable(refused);
    EXPECT_EQ(takeBacksPosted(), QStringLiteral("0"));
    EXPECT_EQ(balance("channel_clearing:USD"), clearing);
}

// The trigger checks a take-back as it is written; the audit checks it after
// the fact, so that a posting written around the trigger (by the owner, or
// with triggers off in a restore) shows.
TEST_F(BreakResolutionTest, TheAuditFindsATakeBackNoApprovedActionPosted)
{
    startGateway();
    const QByteArray paid = charge("amount=1000&currency=usd", "recon-forged");
    expectBooksAgree();
    (void)scalar(
        "DO $$ DECLARE t bigint; BEGIN SET LOCAL session_replication_role = replica; "
        "INSERT INTO keel.ledger_transactions (kind, charge_id, description) SELECT "
        "'channel_takeback', id, 'no second person' FROM keel.charges WHERE public_id = '" +
        paid +
        "' RETURNING id INTO t; "
        "INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount) "
        "SELECT t, a.id, a.currency, "
        "CASE WHEN a.code LIKE 'merchant_payable:%' THEN 1000 ELSE -1000 END "
        "FROM keel.ledger_accounts a WHERE a.code = 'channel_clearing:USD' OR a.code "
        "LIKE 'merchant_payable:%:USD'; END $$");
    ASSERT_EQ(takeBacksPosted(), QStringLiteral("1"));
    const ProcessResult audit = runKeel(
        {QStringLiteral("audit"), QStringLiteral("ledger"), QStringLiteral("--db"), m_service});
    EXPECT_NE(audit.exitCode, 0);
    EXPECT_TRUE(audit.out.contains(QLatin1String("is not what an approved take-back")) ||
                audit.err.contains(QLatin1String("is not what an approved take-back")))
        << qPrintable(audit.out) << qPrintable(audit.err);
}

// Money the channel paid beyond keel's capture was parked in suspense on the
// charge; then the channel took the payment back. The merchant was never
// credited the parked money, and its case could still hand it out: the
// database refuses to take it back, and the workbench settles it.
TEST_F(BreakResolutionTest, NoTakeBackOfAChargeMoneyWasParkedOn)
{
    startGateway();
    const QByteArray paid = charge("amount=1000&currency=usd", "recon-parked");
    ASSERT_EQ(backdateBooks(), QStringLiteral("1"));
    m_day = firstPostingDay();
    ASSERT_EQ(import(statement(QStringLiteral("paid.csv"),
                               {item(paid, ",S1,payment,12.00,USD,0,%1T12:00:00Z")}))
                  .exitCode,
              0);
    EXPECT_EQ(run().value(QStringLiteral("cases_opened")).toInt(), 1);
    EXPECT_EQ(suspense(), QStringLiteral("200"));
    ASSERT_EQ(import(statement(QStringLiteral("disputed.csv"),
                               {item(paid, ",S1,reversal,12.00,USD,0,%1T15:00:00Z")}))
                  .exitCode,
              0);
    run();
    const ReconBreakRow disputed = listed().value(QString::fromUtf8(paid));
    ASSERT_EQ(disputed.breakClass, QStringLiteral("status_mismatch"));
    ASSERT_TRUE(BreakResolutions::canTakeBack(disputed)) << "the console cannot see the parking";
    const QString refused =
        refusalOf(BreakResolutions::takeBack(disputed, BreakResolutions::TakeBackBearer::Merchant));
    EXPECT_TRUE(refused.contains(QLatin1String("parked in suspense"))) << qPrintable(refused);
    EXPECT_EQ(takeBacksPosted(), QStringLiteral("0"));
}

// The dispute was never the channel's: after its take-back, the statement
// that showed it is withdrawn and the corrected one reports the payment
// alone. The run parks what the channel holds beyond keel on the charge; a
// give-back returns it to the merchant, and the charge refunds again.
TEST_F(BreakResolutionTest, ATakeBackWhoseDisputeWasWithdrawnIsGivenBack)
{
    startGateway();
    const QByteArray paid = charge("amount=2000&currency=usd", "recon-gb-withdrawn");
    const QByteArray payable = merchantPayable();
    const qint64 before = balance(payable).toLongLong();
    const SuspenseCaseRow parked = parkedAfterAWithdrawnTakeBack(paid);
    ASSERT_EQ(parked.amount, 2000);
    EXPECT_EQ(
        approveAndRun(CaseResolutions::giveBack(parked, CaseResolutions::GiveBackTo::Merchant))
            .applied,
        1);
    EXPECT_EQ(balance(payable).toLongLong(), before);
    EXPECT_EQ(suspense(), QStringLiteral("0"));
    const HttpReply refunded = post("/v1/refunds", "charge=" + paid, "refund-gb-withdrawn");
    ASSERT_EQ(refunded.status, 200) << refunded.body.constData();
    EXPECT_EQ(
        QJsonDocument::fromJson(refunded.body).object().value(QStringLiteral("amount")).toInt(),
        2000);
    expectBooksAgree();
}

// A take-back holds its break while it waits for the break's open case. A
// resolution of that case that held the case while it waited for the break
// (resolving the case resolves the break, and a give-back's posting names
// it) would wait on the take-back in a circle until the database failed one
// of them: a case's resolution takes the case's break first.
TEST_F(BreakResolutionTest, AGiveBackTakesItsCasesBreakBeforeTheCase)
{
    startGateway();
    const QByteArray paid = charge("amount=2000&currency=usd", "recon-gb-order");
    const SuspenseCaseRow parked = parkedAfterAWithdrawnTakeBack(paid);
    ASSERT_EQ(parked.amount, 2000);
    const RunWhileHeld order = runWhileTheBreakIsHeld(
        parked, CaseResolutions::giveBack(parked, CaseResolutions::GiveBackTo::Merchant));
    ASSERT_TRUE(order.waited) << "the give-back never waited for the break";
    EXPECT_EQ(order.caseFree, QStringLiteral("1"));
    EXPECT_EQ(order.applied, 1);
    EXPECT_EQ(suspense(), QStringLiteral("0"));
    expectBooksAgree();
}

TEST_F(BreakResolutionTest, AWriteOffTakesItsCasesBreakBeforeTheCase)
{
    startGateway();
    const QByteArray paid = charge("amount=2000&currency=usd", "recon-wo-order");
    const SuspenseCaseRow parked = parkedAfterAWithdrawnTakeBack(paid);
    ASSERT_EQ(parked.amount, 2000);
    // Named with a leading zero, as a write-off's target may be: the same case.
    ProposalRequest writeOff = writeOffOfCaseOf(paid);
    ASSERT_EQ(writeOff.targets.size(), 1);
    writeOff.targets.first().id.prepend(u'0');
    const RunWhileHeld order = runWhileTheBreakIsHeld(parked, writeOff);
    ASSERT_TRUE(order.waited) << "the write-off never waited for the break";
    EXPECT_EQ(order.caseFree, QStringLiteral("1"));
    EXPECT_EQ(order.applied, 1);
    EXPECT_EQ(suspense(), QStringLiteral("0"));
    expectBooksAgree();
}

} // namespace

namespace {

// The wrong file was imported: it reports a payment twice under two of the
// channel's numbers and a fee keel did not contract. Withdrawn through a
// second person, its lines stop counting, its fees come back, and the
// corrected file, which shares its good lines, imports and reconciles.
TEST_F(BreakResolutionTest, AStatementImportedWrongIsWithdrawnAndItsCorrectionImported)
{
    startGateway();
    const QByteArray paid = charge("amount=1500&currency=usd", "recon-withdraw");
    m_day = firstPostingDay();
    ASSERT_EQ(import(statement(QStringLiteral("wrong.csv"),
                               {item(paid, ",S1,payment,15.00,USD,0.09,%1T12:00:00Z"),
                                item(paid, ",S9,payment,15.00,USD,0.09,%1T12:00:01Z")}))
                  .exitCode,
              0);
    EXPECT_EQ(breaks(run()),
              QStringList{QStringLiteral("duplicate:%1:new").arg(QString::fromUtf8(paid))});
    EXPECT_EQ(balance("channel_fees:sim:USD"), QStringLiteral("18"));
    const QString corrected = statement(QStringLiteral("corrected.csv"),
                                        {item(paid, ",S1,payment,15.00,USD,0.09,%1T12:00:00Z")});
    EXPECT_EQ(import(corrected).exitCode, 2) << "its line S1 is the wrong file's still";

    auto statements = ReconQuery::statements(as(QStringLiteral("keel_operator")), 10);
    ASSERT_TRUE(statements.ok() && statements->size() == 1);
    const ReconStatementRow wrong = statements->first();
    ASSERT_TRUE(BreakResolutions::canWithdraw(wrong));
    EXPECT_FALSE(ActionDesk(as(QStringLiteral("keel_sre")))
                     .propose(because(BreakResolutions::withdrawal(wrong)))
                     .ok());
    const ActionExecution withdrawn = approveAndRun(BreakResolutions::withdrawal(wrong));
    EXPECT_EQ(withdrawn.applied, 1);
    ASSERT_EQ(withdrawn.targets.size(), 1);
    EXPECT_TRUE(withdrawn.targets.first().message.contains(m_day))
        << "names the days to run again: " << qPrintable(withdrawn.targets.first().message);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_lines"), QStringLiteral("0"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_withdrawn_lines"), QStringLiteral("2"));
    EXPECT_EQ(balance("channel_fees:sim:USD"), QStringLiteral("0"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.audit_log WHERE action = 'recon_withdraw'"),
              QStringLiteral("1"));
    expectBooksAgree();
    auto again = ActionDesk(as(QStringLiteral("keel_operator")))
                     .propose(because(BreakResolutions::withdrawal(wrong)));
    ASSERT_FALSE(again.ok());
    EXPECT_TRUE(again.error().message.contains(QLatin1String("withdrawn already")))
        << qPrintable(again.error().message);

    const ProcessResult imported = import(corrected);
    ASSERT_EQ(imported.exitCode, 0) << qPrintable(imported.err);
    const QJsonObject rerun = run();
    EXPECT_EQ(rerun.value(QStringLiteral("matched")).toInt(), 1);
    EXPECT_TRUE(breaks(rerun).isEmpty()) << QJsonDocument(rerun).toJson().constData();
    EXPECT_EQ(statusOf(QString::fromUtf8(paid)), QStringLiteral("resolved"));
    EXPECT_EQ(balance("channel_fees:sim:USD"), QStringLiteral("9"));
    expectBooksAgree();
}

} // namespace

namespace {

// A wrong file past the lag had parked money for two payments keel never
// made. Withdrawn, their breaks go away at the next run, which gives their
// money back to clearing and closes their cases, one an operator had taken
// included. A case someone is acting on at that moment (its row locked) is
// not waited for: the run after gives its money back.
TEST_F(BreakResolutionTest, MoneyParkedForAWithdrawnLineGoesBackToClearingAtTheNextRun)
{
    startGateway();
    charge("amount=500&currency=usd", "recon-withdraw-parked");
    ASSERT_EQ(backdateBooks(), QStringLiteral("1"));
    m_day = firstPostingDay();
    const QString wrong =
        statement(QStringLiteral("wrong.csv"),
                  {QStringLiteral("ch_otherMerchant01,S1,payment,7.00,USD,0,%1T12:00:00Z"),
                   QStringLiteral("ch_otherMerchant02,S2,payment,3.00,USD,0,%1T12:00:00Z")});
    ASSERT_EQ(import(wrong).exitCode, 0);
    EXPECT_EQ(run().value(QStringLiteral("cases_opened")).toInt(), 3);
    ASSERT_EQ(suspense(), QStringLiteral("500")) << "10.00 held, the 5.00 capture owed";
    const auto caseOf = [&](const char *reference) {
        return scalar("SELECT k.id FROM keel.suspense_cases k JOIN keel.recon_breaks b "
                      "ON b.id = k.recon_break_id WHERE b.reference = '" +
                      QByteArray(reference) + "'")
            .toUtf8();
    };
    const auto caseState = [&](const QByteArray &id) {
        return scalar("SELECT status || ' ' || coalesce(resolution ->> 'kind', '-') FROM "
                      "keel.suspense_cases WHERE id = " +
                      id);
    };
    const QByteArray taken = caseOf("ch_otherMerchant01");
    const QByteArray busy = caseOf("ch_otherMerchant02");
    QSqlQuery take(as(QStringLiteral("keel_operator")));
    ASSERT_TRUE(take.exec(
        QStringLiteral("SELECT status FROM keel.take_case(%1)").arg(QString::fromLatin1(taken))))
        << qPrintable(take.lastError().text());

    auto statements = ReconQuery::statements(as(QStringLiteral("keel_operator")), 10);
    ASSERT_TRUE(statements.ok() && statements->size() == 1);
    const ActionExecution withdrawn =
        approveAndRun(BreakResolutions::withdrawal(statements->first()));
    ASSERT_EQ(withdrawn.targets.size(), 1);
    EXPECT_TRUE(withdrawn.targets.first().message.contains(QLatin1String("700 USD")))
        << qPrintable(withdrawn.targets.first().message);
    const ProcessResult again = import(wrong);
    EXPECT_EQ(again.exitCode, 2);
    EXPECT_TRUE(again.err.contains(QLatin1String("statement_withdrawn"))) << qPrintable(again.err);

    auto holder = LibpqConnection::open(settings());
    ASSERT_TRUE(holder.ok());
    ASSERT_TRUE(holder->exec("BEGIN").ok());
    ASSERT_TRUE(
        holder->exec("SELECT 1 FROM keel.suspense_cases WHERE id = " + busy + " FOR UPDATE").ok());
    EXPECT_FALSE(breaks(run()).contains(QStringLiteral("missing_at_keel:ch_otherMerchant01:new")));
    EXPECT_EQ(statusOf(QStringLiteral("ch_otherMerchant01")), QStringLiteral("resolved"));
    EXPECT_EQ(caseState(taken), QStringLiteral("resolved recon_run"));
    EXPECT_EQ(caseState(busy), QStringLiteral("open -"));
    EXPECT_EQ(suspense(), QStringLiteral("-200"));
    ASSERT_TRUE(holder->exec("ROLLBACK").ok());

    run();
    EXPECT_EQ(caseState(busy), QStringLiteral("resolved recon_run"));
    EXPECT_EQ(suspense(), QStringLiteral("-500")) << "the capture, still owed";
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("0"))
        << "the real capture only, parked as owed";
    EXPECT_EQ(scalar("SELECT string_agg(object_id || ':' || (detail ->> 'returned'), ' ' "
                     "ORDER BY id) FROM keel.audit_log WHERE action = 'case.close_by_run'"),
              QString::fromLatin1(taken + ":700 " + busy + ":300"));
    expectBooksAgree();
}

// A line under a reference keel never sent (the channel cut the order number
// short) came before keel knew the channel's id it carries: its day found a
// payment keel never made and parked its money, which a person then wrote
// off. Once keel keeps the id, the line is the charge's second report. The
// money the person settled for it is counted on the charge: the duplicate is
// chased by a case, not parked a second time.
TEST_F(BreakResolutionTest, MoneyAPersonSettledForALineUnderAnUnknownIdIsNotParkedAgain)
{
    startGateway();
    const auto [paid, paidId] = chargeWithItsIdNotYetKnown("settled-under-id-twice");
    const QString next = QDate::fromString(m_day, Qt::ISODate).addDays(1).toString(Qt::ISODate);
    ASSERT_EQ(import(statement(QStringLiteral("twice.csv"),
                               {item(paid, ",sim_anotherTradeOfIt0000,payment,15.00,USD,0,"
                                           "%1T10:00:00Z"),
                                QStringLiteral("order-cut-short,") + paidId +
                                    QStringLiteral(",payment,15.00,USD,0,%2T09:00:00Z")}))
                  .exitCode,
              0);
    EXPECT_TRUE(breaks(run()).isEmpty());
    EXPECT_EQ(breaks(run(QStringLiteral("sim"), next)),
              QStringList{QStringLiteral("missing_at_keel:order-cut-short:new")});
    ASSERT_EQ(suspense(), QStringLiteral("1500"));
    EXPECT_EQ(approveAndRun(writeOffOfCaseOf("order-cut-short")).applied, 1);
    ASSERT_EQ(suspense(), QStringLiteral("0"));

    setChannelReference("'" + paidId.toUtf8() + "'");
    const QJsonObject day = run();
    EXPECT_EQ(breaks(day),
              QStringList{QStringLiteral("duplicate:%1:new").arg(QString::fromUtf8(paid))})
        << QJsonDocument(day).toJson().constData();
    EXPECT_EQ(scalar("SELECT channel_amount || ' ' || keel_amount FROM keel.recon_breaks "
                     "WHERE class = 'duplicate'"),
              QStringLiteral("3000 3000"));
    EXPECT_EQ(scalar("SELECT string_agg(amount || ' ' || status, ',' ORDER BY id) "
                     "FROM keel.suspense_cases"),
              QStringLiteral("1500 written_off,0 open"))
        << "the second report is chased, its money held once already";
    EXPECT_EQ(suspense(), QStringLiteral("0"));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("3000"))
        << "the two reports, each booked once";
    EXPECT_TRUE(
        run(QStringLiteral("sim"), next).value(QStringLiteral("breaks")).toArray().isEmpty());
    expectBooksAgree();
}

// The same, with the payment reported once, under the channel's id alone:
// the written-off money was the capture's. Past the lag the run parked the
// capture as owed (migration 0050), and the person wrote off the line's
// money as a gain: clearing holds what the channel moved, once. Once keel
// keeps the id, the charge's run counts the settled line on the charge and
// matches; the owed case stays open, so the suspense account still shows
// the capture to a person, who settles it against the gain.
TEST_F(BreakResolutionTest, MoneyAPersonSettledForALineLaterFoundToBeACaptureIsShown)
{
    startGateway();
    const auto [paid, paidId] = chargeWithItsIdNotYetKnown("settled-under-id-once");
    ASSERT_EQ(import(statement(QStringLiteral("once.csv"),
                               {paidId + u',' + paidId +
                                QStringLiteral(",payment,15.00,USD,0,%1T10:00:00Z")}))
                  .exitCode,
              0);
    const QStringList both = breaks(run());
    EXPECT_TRUE(both.contains(QStringLiteral("missing_at_keel:%1:new").arg(paidId)));
    ASSERT_EQ(suspense(), QStringLiteral("0")) << "15.00 held for the line, 15.00 owed";
    EXPECT_EQ(approveAndRun(writeOffOfCaseOf(paidId.toUtf8())).applied, 1);

    setChannelReference("'" + paidId.toUtf8() + "'");
    const QJsonObject day = run();
    EXPECT_TRUE(breaks(day).isEmpty()) << QJsonDocument(day).toJson().constData();
    EXPECT_EQ(scalar("SELECT string_agg(k.amount || ' ' || k.direction || ' ' || b.class, ',') "
                     "FROM keel.suspense_cases k JOIN keel.recon_breaks b "
                     "ON b.id = k.recon_break_id WHERE k.status = 'open'"),
              QStringLiteral("1500 owed missing_at_channel"))
        << "the capture's owed case is left to the person";
    EXPECT_EQ(suspense(), QStringLiteral("-1500"));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("1500"));
    expectBooksAgree();
}

// A line the run matched on the channel's own id is its break's channel side:
// the operator sees it beside keel's charge, under keel's reference.
TEST_F(BreakResolutionTest, ABreakOfALineUnderTheChannelsIdShowsThatLine)
{
    startGateway();
    const QByteArray paid = charge("amount=1500&currency=usd", "own-id-break");
    const QString paidId = scalar("SELECT channel_reference FROM keel.charges");
    ASSERT_TRUE(paidId.startsWith(QLatin1String("sim_"))) << qPrintable(paidId);
    ASSERT_EQ(backdateBooks(), QStringLiteral("1"));
    m_day = firstPostingDay();
    ASSERT_EQ(import(statement(QStringLiteral("own-id.csv"),
                               {paidId + u',' + paidId +
                                QStringLiteral(",payment,15.20,USD,0,%1T10:00:00Z")}))
                  .exitCode,
              0);
    EXPECT_EQ(breaks(run()),
              QStringList{QStringLiteral("amount_mismatch:%1:new").arg(QString::fromUtf8(paid))});
    const ReconBreakRow found = listed().value(QString::fromUtf8(paid));
    EXPECT_EQ(found.channelAmount.amount, 1520);
    auto detail = ReconQuery::detail(as(QStringLiteral("keel_operator")), found);
    ASSERT_TRUE(detail.ok()) << qPrintable(detail.error().message);
    ASSERT_EQ(detail->lines.size(), 1);
    EXPECT_EQ(detail->lines[0].channelReference, paidId);
    EXPECT_EQ(detail->lines[0].amount.amount, 1520);
    EXPECT_TRUE(detail->keelKnows);
    EXPECT_EQ(detail->keelAmount.amount, 1500);
}

} // namespace
