#include "ReconciliationFixture.h"
#include "WaitUntil.h"

#include "core/db/LibpqConnection.h"
#include "core/db/QtSqlConnections.h"
#include "core/ops/BreakResolutions.h"
#include "core/read/ReconQuery.h"
#include "core/read/SuspenseQuery.h"

#include <QProcess>
#include <QSqlQuery>

#include <thread>

using namespace keel;
using keel::test::keelBinary;
using keel::test::waitUntil;

namespace {

// What a withdrawn statement leaves for people and for the service login
// (migration 0048), run as production runs: the service imports and runs,
// an operator proposes, an approver approves.
class WithdrawnBreaksTest : public keel::test::ReconciliationTest {
protected:
    // The withdrawal of the day's only statement, to propose.
    ProposalRequest withdrawal()
    {
        auto statements = ReconQuery::statements(as(QStringLiteral("keel_operator")), 10);
        EXPECT_TRUE(statements.ok() && statements->size() == 1);
        return statements.ok() && statements->size() == 1
                   ? BreakResolutions::withdrawal(statements->first())
                   : ProposalRequest{};
    }

    void withdrawTheStatement() { ASSERT_EQ(approveAndRun(withdrawal()).applied, 1); }

    QString awaiting(const QString &reference)
    {
        return scalar("SELECT string_agg(class || ' ' || status || ' ' || awaiting_run, ',') "
                      "FROM keel.recon_breaks WHERE reference = '" +
                      reference.toUtf8() + "'");
    }

    // Whether the workbench's queue, read as `role`, shows the case of
    // `reference`'s break waiting for a run; "absent" if it lists no such case.
    QString caseAwaitsRun(const char *role, const char *reference)
    {
        SuspenseCaseFilter everyCase;
        everyCase.status = SuspenseCaseFilter::Status::All;
        auto cases = SuspenseQuery::queue(as(QString::fromLatin1(role)), everyCase);
        if (!cases.ok())
            return cases.error().message;
        const QString caseId =
            scalar("SELECT max(k.id) FROM keel.suspense_cases k JOIN keel.recon_breaks b "
                   "ON b.id = k.recon_break_id WHERE b.reference = '" +
                   QByteArray(reference) + "'");
        for (const SuspenseCaseRow &held : std::as_const(*cases))
            if (QString::number(held.id) == caseId)
                return held.awaitingRun ? QStringLiteral("true") : QStringLiteral("false");
        return QStringLiteral("absent");
    }

    // Runs `sql` as the service login in a transaction it rolls back: the
    // SQLSTATE it failed with and why, or "ok".
    QString asTheService(const QByteArrayList &sql)
    {
        auto service = LibpqConnection::open(m_serviceLogin);
        if (!service.ok())
            return service.error().message;
        if (Status begun = service->exec("BEGIN"); !begun)
            return begun.error().message;
        for (const QByteArray &statement : sql)
            if (Status done = service->exec(statement); !done)
                return done.error().code + QStringLiteral(": ") + done.error().message;
        (void)service->exec("ROLLBACK");
        return QStringLiteral("ok");
    }
};

// A line withdrawn took its break's grounds with it, though the break still
// shows its amounts until its day runs again. Matched by hand before then,
// the match would return the line's parked money to clearing and close the
// case of a capture the channel never reported, for good. The database
// refuses every decision on such a break until a run has judged it; the run
// then finds no line and gives the parked money back itself.
TEST_F(WithdrawnBreaksTest, NoOneDecidesOnAWithdrawnLinesBreakBeforeItsDayRunsAgain)
{
    startGateway();
    const QByteArray paid =
        oneMovementAsTwoBreaks("recon-stale-match", QStringLiteral("ch_channelsOwn0001"));
    ASSERT_FALSE(HasFailure());
    const qint64 approvedBefore = proposeAndApprove(writeOffOfCaseOf("ch_channelsOwn0001"));
    ASSERT_NE(approvedBefore, 0);
    const QString lastRun = scalar("SELECT max(id) FROM keel.recon_runs");
    withdrawTheStatement();
    // The run before it is still verified on the lines it read.
    const keel::test::ProcessResult verified =
        recon({QStringLiteral("verify"), QStringLiteral("--run"), lastRun});
    EXPECT_EQ(verified.exitCode, 0) << qPrintable(verified.err);
    EXPECT_EQ(awaiting(QStringLiteral("ch_channelsOwn0001")),
              QStringLiteral("missing_at_keel new true"));
    EXPECT_EQ(awaiting(QString::fromUtf8(paid)), QStringLiteral("missing_at_channel new false"))
        << "keel's capture bears on no withdrawn line";

    const QMap<QString, ReconBreakRow> open = listed();
    const ReconBreakRow atKeel = open.value(QStringLiteral("ch_channelsOwn0001"));
    const ReconBreakRow atChannel = open.value(QString::fromUtf8(paid));
    EXPECT_TRUE(atKeel.awaitingRun);
    EXPECT_FALSE(atChannel.awaitingRun);
    EXPECT_FALSE(BreakResolutions::canMatch(atKeel, atChannel)) << "the console offers nothing";
    EXPECT_FALSE(BreakResolutions::canAccept(atKeel));
    EXPECT_TRUE(BreakResolutions::canAccept(atChannel));
    EXPECT_EQ(caseAwaitsRun("keel_operator", "ch_channelsOwn0001"), QStringLiteral("true"));
    EXPECT_EQ(caseAwaitsRun("keel_auditor", "ch_channelsOwn0001"), QStringLiteral("true"));
    // Asked anyway, as an older console would, the database refuses.
    const QString refused = refusalOf(BreakResolutions::match(atKeel, atChannel));
    EXPECT_TRUE(refused.contains(QLatin1String("run the day again"))) << qPrintable(refused);
    EXPECT_TRUE(refusalOf(BreakResolutions::accept(atKeel, QDate::currentDate().addDays(5)))
                    .contains(QLatin1String("run the day again")));
    EXPECT_TRUE(
        refusalOf(BreakResolutions::accept(atChannel, QDate::currentDate().addDays(5))).isEmpty())
        << "a break the withdrawal did not touch is decided on as before";
    // Nor is its case settled: a write-off approved before the withdrawal
    // would keep the run from giving the line's money back.
    const TargetOutcome late = onlyTarget(runApproved(approvedBefore));
    EXPECT_EQ(late.outcome, QStringLiteral("not_allowed"));
    EXPECT_TRUE(late.message.contains(QLatin1String("run the day again")))
        << qPrintable(late.message);
    EXPECT_TRUE(refusalOf(writeOffOfCaseOf("ch_channelsOwn0001"))
                    .contains(QLatin1String("run the day again")));

    run();
    EXPECT_EQ(awaiting(QStringLiteral("ch_channelsOwn0001")),
              QStringLiteral("missing_at_keel resolved false"));
    EXPECT_EQ(caseAwaitsRun("keel_operator", "ch_channelsOwn0001"), QStringLiteral("false"));
    EXPECT_EQ(statusOf(QString::fromUtf8(paid)), QStringLiteral("resolved"))
        << "the channel never reported keel's capture: parked as owed, the charge reconciles";
    EXPECT_EQ(scalar("SELECT string_agg(k.direction || ' ' || k.status, ',') "
                     "FROM keel.suspense_cases k JOIN keel.charges c ON c.id = k.charge_id"),
              QStringLiteral("owed open"))
        << "its case stays with a person";
    EXPECT_EQ(suspense(), QStringLiteral("-2000"))
        << "the withdrawn line's money back in clearing, the capture owed";
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("0"));
    expectBooksAgree();
}

// A line the channel named only by its own id is judged under keel's
// reference of the charge that id names, and so is its break: withdrawing
// the statement opens that break again, a person's acceptance of it gone.
TEST_F(WithdrawnBreaksTest, AWithdrawalReopensTheBreaksOfLinesNamedByTheChannelsId)
{
    startGateway();
    const QByteArray paid = charge("amount=2000&currency=usd", "recon-by-channel-id");
    const QString channelId = scalar("SELECT channel_reference FROM keel.charges");
    ASSERT_TRUE(channelId.startsWith(QLatin1String("sim_"))) << qPrintable(channelId);
    m_day = firstPostingDay();
    ASSERT_EQ(import(statement(QStringLiteral("day.csv"),
                               {QStringLiteral("ord-cut-short-1,") + channelId +
                                QStringLiteral(",payment,25.00,USD,0,%1T00:00:01Z")}))
                  .exitCode,
              0);
    run();
    const ReconBreakRow over = listed().value(QString::fromUtf8(paid));
    ASSERT_EQ(over.breakClass, QStringLiteral("amount_mismatch"));
    ASSERT_EQ(
        approveAndRun(BreakResolutions::accept(over, QDate::currentDate().addDays(5))).applied, 1);
    ASSERT_EQ(statusOf(QString::fromUtf8(paid)), QStringLiteral("accepted"));

    withdrawTheStatement();
    EXPECT_EQ(awaiting(QString::fromUtf8(paid)), QStringLiteral("amount_mismatch persisting true"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_breaks WHERE resolution IS NOT NULL"),
              QStringLiteral("0"));
    expectBooksAgree();
}

// A match of a withdrawn line's break that commits while the withdrawal
// waits for that break names a counterpart the withdrawal had not listed:
// it is opened again too, and waits for its day's run with the other. The
// match is committed here by hand, as execute_action() would commit it.
TEST_F(WithdrawnBreaksTest, AMatchCommittedWhileTheWithdrawalWaitsIsUndoneWithIt)
{
    startGateway();
    const QByteArray paid =
        oneMovementAsTwoBreaks("recon-race-withdraw", QStringLiteral("ch_channelsOwn0001"));
    ASSERT_FALSE(HasFailure());
    const QByteArray atKeel =
        scalar("SELECT id FROM keel.recon_breaks WHERE reference = 'ch_channelsOwn0001'")
            .toLatin1();
    const QByteArray atChannel =
        scalar("SELECT id FROM keel.recon_breaks WHERE reference = '" + paid + "'").toLatin1();
    const qint64 proposal = proposeAndApprove(withdrawal());
    ASSERT_NE(proposal, 0);

    auto matcher = LibpqConnection::open(settings());
    ASSERT_TRUE(matcher.ok());
    ASSERT_TRUE(matcher->exec("BEGIN").ok());
    const auto matched = [](const QByteArray &id, const QByteArray &counterpart) -> QByteArray {
        return "UPDATE keel.recon_breaks SET status = 'resolved', resolved_at = now(), "
               "resolution = jsonb_build_object('kind', 'recon_break.match', 'counterpart', " +
               counterpart +
               ", 'channel_amount', channel_amount, 'keel_amount', keel_amount) WHERE id = " + id;
    };
    ASSERT_TRUE(matcher->exec(matched(atKeel, atChannel)).ok());
    const ConnectionSettings approver = loginAs(QStringLiteral("keel_approver"));
    int applied = 0;
    std::thread withdrawing([&] { applied = executeAsApprover(approver, proposal); });
    const bool waited = waitUntil([&] {
        return scalar("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                      "AND usename = '" +
                      approver.value(QStringLiteral("user")).toUtf8() + "'") == QLatin1String("1");
    });
    const bool committed =
        matcher->exec(matched(atChannel, atKeel)).ok() && matcher->exec("COMMIT").ok();
    withdrawing.join();
    ASSERT_TRUE(waited) << "the withdrawal never waited for the break";
    ASSERT_TRUE(committed);
    EXPECT_EQ(applied, 1);
    EXPECT_EQ(awaiting(QStringLiteral("ch_channelsOwn0001")),
              QStringLiteral("missing_at_keel persisting true"));
    EXPECT_EQ(awaiting(QString::fromUtf8(paid)),
              QStringLiteral("missing_at_channel persisting true"))
        << "the counterpart the match named, opened again";
}

// A run reads the lines of a reference on any day, so a withdrawal cannot
// know every break a run under way may write from its lines: the runs of a
// channel share a lock that a withdrawal takes alone. A run waits for a
// withdrawal, and a withdrawal for the runs, each here held by the test.
TEST_F(WithdrawnBreaksTest, RunsAndAWithdrawalOfTheirChannelWaitForEachOther)
{
    startGateway();
    oneMovementAsTwoBreaks("recon-run-lock", QStringLiteral("ch_channelsOwn0001"));
    ASSERT_FALSE(HasFailure());
    const QByteArray key = "hashtext('keel.recon.runs:sim'), 0";
    const auto waitingAs = [&](const ConnectionSettings &login) {
        return waitUntil([&] {
            return scalar("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'advisory' "
                          "AND usename = '" +
                          login.value(QStringLiteral("user")).toUtf8() + "'") == QLatin1String("1");
        });
    };
    auto holder = LibpqConnection::open(settings());
    ASSERT_TRUE(holder.ok());

    ASSERT_TRUE(holder->exec("SELECT pg_advisory_lock(" + key + ")").ok());
    QProcess running;
    running.start(keelBinary(),
                  {QStringLiteral("recon"), QStringLiteral("run"), QStringLiteral("--channel"),
                   QStringLiteral("sim"), QStringLiteral("--date"), m_day, QStringLiteral("--db"),
                   m_service});
    EXPECT_TRUE(waitingAs(m_serviceLogin)) << "the run did not wait for the withdrawal";
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_runs"), QStringLiteral("1"));
    ASSERT_TRUE(holder->exec("SELECT pg_advisory_unlock(" + key + ")").ok());
    ASSERT_TRUE(running.waitForFinished(60000));
    EXPECT_EQ(running.exitCode(), 0) << running.readAllStandardError().constData();
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_runs"), QStringLiteral("2"));

    const qint64 proposal = proposeAndApprove(withdrawal());
    ASSERT_NE(proposal, 0);
    ASSERT_TRUE(holder->exec("SELECT pg_advisory_lock_shared(" + key + ")").ok());
    const ConnectionSettings approver = loginAs(QStringLiteral("keel_approver"));
    int applied = 0;
    std::thread withdrawing([&] { applied = executeAsApprover(approver, proposal); });
    const bool waited = waitingAs(approver);
    const QString withdrawnMeanwhile =
        scalar("SELECT count(*) FROM keel.recon_statements WHERE withdrawn_at IS NOT NULL");
    (void)holder->exec("SELECT pg_advisory_unlock_shared(" + key + ")");
    withdrawing.join();
    EXPECT_TRUE(waited) << "the withdrawal did not wait for the run";
    EXPECT_EQ(withdrawnMeanwhile, QStringLiteral("0"));
    EXPECT_EQ(applied, 1);
}

// The service login opens a saga's case and nothing else, and the case
// holds exactly what its own posting parked: a case naming a break, or a
// closed one, is keel's own functions' to write, and a case claiming more
// than its posting parked would have a run or a person release the rest.
TEST_F(WithdrawnBreaksTest, TheServiceOpensOnlyCasesHoldingWhatItsOwnPostingParked)
{
    startGateway();
    charge("amount=2000&currency=usd", "recon-service-case");
    const QByteArray posting =
        "WITH t AS (INSERT INTO keel.ledger_transactions (kind, description) "
        "VALUES ('suspense_in', 'a park') RETURNING id) "
        "INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount) "
        "SELECT t.id, a.id, 'USD', CASE a.kind WHEN 'suspense' THEN -500 ELSE 500 END "
        "FROM t, keel.ledger_accounts a WHERE a.currency = 'USD' "
        "AND (a.kind = 'suspense' OR a.code = 'channel_clearing:USD')";
    const auto caseOf = [](const char *amount) -> QByteArray {
        return QByteArray("INSERT INTO keel.suspense_cases (currency, amount, reason, "
                          "ledger_transaction_id) SELECT 'USD', ") +
               amount +
               ", 'parked', max(id) FROM keel.ledger_transactions WHERE kind = 'suspense_in'";
    };
    const auto refusedAs = [](const QString &outcome, const char *code) {
        return outcome.startsWith(QLatin1String(code)) &&
               (outcome.contains(QLatin1String("its own posting")) ||
                outcome.contains(QLatin1String("permission denied")));
    };
    EXPECT_EQ(asTheService({posting, caseOf("500")}), QStringLiteral("ok"));
    const QString more = asTheService({posting, caseOf("1000000")});
    EXPECT_TRUE(refusedAs(more, "KL422")) << qPrintable(more);
    const QString twice = asTheService({posting, caseOf("500"), caseOf("500")});
    EXPECT_TRUE(refusedAs(twice, "KL422"))
        << "one posting held by two cases: " << qPrintable(twice);
    QByteArray euros = caseOf("500");
    euros.replace("SELECT 'USD'", "SELECT 'EUR'");
    const QString other = asTheService({posting, euros});
    EXPECT_TRUE(refusedAs(other, "KL422")) << "parked in dollars: " << qPrintable(other);
    const QString none = asTheService({"INSERT INTO keel.suspense_cases (currency, amount, reason) "
                                       "VALUES ('USD', 700, 'nothing parked')"});
    EXPECT_TRUE(refusedAs(none, "KL422")) << qPrintable(none);
    const QString closed =
        asTheService({"INSERT INTO keel.suspense_cases (currency, amount, reason, status, "
                      "resolved_at) VALUES ('USD', 0, 'closed', 'resolved', now())"});
    EXPECT_TRUE(refusedAs(closed, "42501")) << qPrintable(closed);
    const QString ofABreak =
        asTheService({"INSERT INTO keel.suspense_cases (currency, amount, reason, "
                      "recon_break_id) VALUES ('USD', 0, 'a break''s', 1)"});
    EXPECT_TRUE(refusedAs(ofABreak, "42501")) << qPrintable(ofABreak);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.suspense_cases"), QStringLiteral("0"));
}

// A statement is inserted as imported: the service login cannot insert one
// marked withdrawn, whose lines no person could then withdraw.
TEST_F(WithdrawnBreaksTest, AStatementIsNeverInsertedWithdrawn)
{
    startGateway();
    auto service = LibpqConnection::open(m_serviceLogin);
    ASSERT_TRUE(service.ok());
    ASSERT_TRUE(service->exec("BEGIN").ok());
    auto inserted = service->scalar(
        "INSERT INTO keel.recon_statements (channel, format, file_sha256, line_count, "
        "withdrawn_at, withdrawn_by_action) VALUES ('sim', 'csv', sha256('x'), 0, now(), 1) "
        "RETURNING (withdrawn_at IS NULL AND withdrawn_by_action IS NULL)::text");
    ASSERT_TRUE(inserted.ok()) << qPrintable(inserted.error().message);
    EXPECT_EQ(*inserted, QStringLiteral("true"));
    (void)service->exec("ROLLBACK");
}

} // namespace

namespace {

// A run keeps the snapshot it read in (migration 0049), so it records itself
// from the REPEATABLE READ transaction that read its day: recorded from a
// READ COMMITTED one, the snapshot kept would be later than its reads.
TEST_F(WithdrawnBreaksTest, ARunIsRecordedOnlyFromTheSnapshotItReadIn)
{
    const QByteArray record =
        "SELECT * FROM keel.recon_record_run_in_break_order('sim', '2026-12-01', "
        "'{\"breaks\":[],\"channel\":\"sim\",\"date\":\"2026-12-01\",\"matched\":0}', 0)";
    const QString committed = asTheService({record});
    EXPECT_TRUE(committed.startsWith(QLatin1String("KL422"))) << qPrintable(committed);
    EXPECT_TRUE(committed.contains(QLatin1String("REPEATABLE READ"))) << qPrintable(committed);
    EXPECT_EQ(asTheService({"SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", record}),
              QStringLiteral("ok"));
    // A transaction that took an id before it read anything (a lock that
    // needs one), and saw another commit after it, counts itself as seen by
    // its own snapshot: verification would count the run's own postings as
    // read.
    auto service = LibpqConnection::open(m_serviceLogin);
    ASSERT_TRUE(service.ok()) << qPrintable(service.error().message);
    ASSERT_TRUE(service->exec("BEGIN ISOLATION LEVEL REPEATABLE READ"));
    ASSERT_TRUE(service->exec("LOCK TABLE keel.charges IN ACCESS EXCLUSIVE MODE"));
    ASSERT_TRUE(QSqlQuery(db()).exec(QStringLiteral("SELECT pg_current_xact_id()")));
    const Status writtenFirst = service->exec(record);
    ASSERT_FALSE(writtenFirst);
    EXPECT_EQ(writtenFirst.error().code, QLatin1String("KL422"));
    EXPECT_TRUE(writtenFirst.error().message.contains(QLatin1String("before it writes")))
        << qPrintable(writtenFirst.error().message);
}

} // namespace
