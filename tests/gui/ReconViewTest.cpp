#include "MigratedDatabaseTest.h"

#include "core/db/QtSqlConnections.h"
#include "core/ops/Attention.h"
#include "core/ops/BreakResolutions.h"
#include "ui/ProposeDialog.h"
#include "ui/QueryWorker.h"
#include "ui/ReconView.h"

#include <QDateEdit>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

using namespace keel;
using keel::test::MigratedDatabaseTest;

// A settlement operator's Reconciliation view on a day the service ran: a
// payment the channel took that keel has no record of, and one that matched.
class ReconViewTest : public MigratedDatabaseTest {
protected:
    void SetUp() override
    {
        MigratedDatabaseTest::SetUp();
        ASSERT_FALSE(HasFatalFailure());
        // One transaction: a statement's lines are written with it.
        exec("INSERT INTO keel.recon_statements (channel, format, file_sha256, line_count) "
             "VALUES ('sim', 'csv', sha256('statement'::bytea), 2); "
             "INSERT INTO keel.recon_lines (statement_id, channel, line_no, kind, reference, "
             "channel_reference, amount, currency, fee, occurred_at) VALUES "
             "(currval('keel.recon_statements_id_seq'), 'sim', 1, 'payment', "
             "'ch_nobody000000001', 'S1', 1999, 'USD', 58, '2026-11-20 12:00Z'), "
             "(currval('keel.recon_statements_id_seq'), 'sim', 2, 'payment', "
             "'ch_matched00000001', 'S2', 500, 'JPY', 0, '2026-11-20 13:00Z'); "
             "INSERT INTO keel.recon_runs (channel, business_date, matched, breaks, "
             "result_sha256, result, day_lines) VALUES ('sim', '2026-11-20', 1, 1, "
             "sha256('run'::bytea), '{}', 2); "
             "INSERT INTO keel.recon_breaks (channel, business_date, class, kind, reference, "
             "currency, channel_amount, keel_amount, status, first_run_id, last_run_id) VALUES "
             "('sim', '2026-11-20', 'missing_at_keel', 'payment', 'ch_nobody000000001', 'USD', "
             "1999, 0, 'persisting', currval('keel.recon_runs_id_seq'), "
             "currval('keel.recon_runs_id_seq'))");
        m_worker = std::make_unique<QueryWorker>(loginAs(QStringLiteral("keel_operator")));
        m_worker->start();
    }
    void TearDown() override
    {
        if (m_worker)
            m_worker->stop();
        MigratedDatabaseTest::TearDown();
    }
    // A second break on the day: keel's 19.99 USD the channel never reported.
    void addOursMissingAtChannel()
    {
        exec("INSERT INTO keel.recon_breaks (channel, business_date, class, kind, reference, "
             "currency, channel_amount, keel_amount, status, first_run_id, last_run_id) "
             "SELECT 'sim', '2026-11-20', 'missing_at_channel', 'payment', 'ch_ours0000000001', "
             "'USD', 0, 1999, 'persisting', id, id FROM keel.recon_runs");
    }
    static QString cell(const QTableWidget *table, int row, int column)
    {
        const QTableWidgetItem *item = table->item(row, column);
        return item ? item->text() : QString();
    }
    std::unique_ptr<QueryWorker> m_worker;
};

TEST_F(ReconViewTest, TheDayItsBreakAndBothSidesOfItAreShown)
{
    ReconView view(m_worker.get());
    view.show();
    QSignalSpy refreshed(&view, &ReconView::refreshed);
    QSignalSpy failed(&view, &ReconView::failed);
    view.refresh();
    ASSERT_TRUE(refreshed.wait(10000));
    EXPECT_EQ(failed.count(), 0) << qPrintable(failed.value(0).value(0).toString());

    ASSERT_EQ(view.runs()->rowCount(), 1);
    EXPECT_EQ(cell(view.runs(), 0, 1), QStringLiteral("2026-11-20"));
    EXPECT_EQ(cell(view.runs(), 0, 2), QStringLiteral("2")) << "the day's lines";
    EXPECT_TRUE(cell(view.runs(), 0, 3).startsWith(QLatin1String("1 (50")))
        << qPrintable(cell(view.runs(), 0, 3));
    EXPECT_EQ(cell(view.runs(), 0, 5), QStringLiteral("19.99 USD")) << "unexplained";
    EXPECT_TRUE(view.summary()->text().contains(QLatin1String("19.99 USD")));

    ASSERT_EQ(view.ages()->rowCount(), 1);
    EXPECT_EQ(cell(view.ages(), 0, 0), QStringLiteral("missing_at_keel"));
    const int ageDays = int(QDate(2026, 11, 20).daysTo(QDate::currentDate()));
    const int bucket = ageDays <= 1 ? 1 : ageDays <= 7 ? 2 : ageDays <= 30 ? 3 : 4;
    EXPECT_EQ(cell(view.ages(), 0, bucket), QStringLiteral("1"));

    ASSERT_EQ(view.breaks()->rowCount(), 1);
    EXPECT_EQ(cell(view.breaks(), 0, 4), QStringLiteral("ch_nobody000000001"));
    EXPECT_EQ(cell(view.breaks(), 0, 5), QStringLiteral("19.99 USD"));
    EXPECT_EQ(cell(view.breaks(), 0, 6), QStringLiteral("0.00 USD"));
    EXPECT_EQ(cell(view.breaks(), 0, 7), QStringLiteral("persisting"));

    QSignalSpy shown(&view, &ReconView::breakShown);
    view.selectBreak(0);
    ASSERT_TRUE(shown.wait(10000));
    EXPECT_TRUE(
        view.channelSide()->text().contains(QStringLiteral("S1 · 19.99 USD · fee 0.58 USD")))
        << qPrintable(view.channelSide()->text());
    EXPECT_TRUE(view.keelSide()->text().contains(QLatin1String("keel has no payment")))
        << qPrintable(view.keelSide()->text());
    EXPECT_TRUE(view.timeline()->text().contains(QLatin1String("raised by run")))
        << qPrintable(view.timeline()->text());
}

// A refund the channel paid out that keel has no record of: its line names
// the charge it came from, and the detail says which (migration 0052).
TEST_F(ReconViewTest, ARefundKeelHasNoRecordOfShowsTheChargeItsLineNames)
{
    exec("INSERT INTO keel.recon_statements (channel, format, file_sha256, line_count) "
         "VALUES ('sim', 'csv', sha256('refunds'::bytea), 1); "
         "INSERT INTO keel.recon_lines (statement_id, channel, line_no, kind, reference, "
         "channel_reference, amount, currency, fee, occurred_at, payment_reference) VALUES "
         "(currval('keel.recon_statements_id_seq'), 'sim', 1, 'refund', 're_portal00000001', "
         "'R1', 700, 'USD', 0, '2026-11-20 14:00Z', 'ch_matched00000001'); "
         "UPDATE keel.recon_breaks SET kind = 'refund', reference = 're_portal00000001', "
         "channel_amount = 700");
    ReconView view(m_worker.get());
    view.show();
    QSignalSpy refreshed(&view, &ReconView::refreshed);
    view.refresh();
    ASSERT_TRUE(refreshed.wait(10000));
    ASSERT_EQ(view.breaks()->rowCount(), 1);
    QSignalSpy shown(&view, &ReconView::breakShown);
    view.selectBreak(0);
    ASSERT_TRUE(shown.wait(10000));
    EXPECT_TRUE(view.channelSide()->text().contains(QStringLiteral("R1 · 7.00 USD")))
        << qPrintable(view.channelSide()->text());
    EXPECT_TRUE(view.keelSide()->text().contains(
        QLatin1String("keel has no refund re_portal00000001; the channel's line names charge "
                      "ch_matched00000001")))
        << qPrintable(view.keelSide()->text());
}

// Open breaks come a page at a time, by keyset: the next page starts after
// the last row shown, in the same order, whatever was resolved meanwhile.
TEST_F(ReconViewTest, OpenBreaksPageOnFromTheLastOneShown)
{
    exec("INSERT INTO keel.recon_breaks (channel, business_date, class, kind, reference, "
         "currency, channel_amount, keel_amount, status, first_run_id, last_run_id) "
         "SELECT 'sim', '2026-11-20', 'missing_at_keel', 'payment', "
         "'ch_many' || lpad(i::text, 11, '0'), 'USD', 100, 0, 'new', r.id, r.id "
         "FROM generate_series(1, 249) i, (SELECT max(id) AS id FROM keel.recon_runs) r");
    ReconView view(m_worker.get());
    QSignalSpy refreshed(&view, &ReconView::refreshed);
    view.refresh();
    ASSERT_TRUE(refreshed.wait(10000));
    ASSERT_EQ(view.breaks()->rowCount(), 200);
    EXPECT_EQ(cell(view.breaks(), 199, 4), QStringLiteral("ch_many00000000200"));
    ASSERT_TRUE(view.moreBreaksButton()->isEnabled());

    // Resolved meanwhile: one already shown, one not yet.
    exec("UPDATE keel.recon_breaks SET status = 'resolved', resolved_at = now() "
         "WHERE reference IN ('ch_many00000000001', 'ch_many00000000201')");
    QSignalSpy loaded(&view, &ReconView::breaksLoaded);
    view.moreBreaksButton()->click();
    ASSERT_TRUE(loaded.wait(10000));
    ASSERT_EQ(view.breaks()->rowCount(), 249) << "200 shown, then the 49 open after them";
    EXPECT_EQ(cell(view.breaks(), 200, 4), QStringLiteral("ch_many00000000202"));
    EXPECT_EQ(cell(view.breaks(), 248, 4), QStringLiteral("ch_nobody000000001"));
    EXPECT_FALSE(view.moreBreaksButton()->isEnabled()) << "a short page is the last";
}

// The channel reported keel's payment under its own reference: the operator
// selects the two breaks, proposes a match, a second person approves it, and
// the view has nothing left to explain.
TEST_F(ReconViewTest, TwoBreaksOfOneMovementAreMatchedThroughASecondPerson)
{
    addOursMissingAtChannel();
    ReconView view(m_worker.get());
    view.show();
    QSignalSpy refreshed(&view, &ReconView::refreshed);
    view.refresh();
    ASSERT_TRUE(refreshed.wait(10000));
    ASSERT_EQ(view.breaks()->rowCount(), 2);

    view.selectBreak(0);
    EXPECT_FALSE(view.matchButton()->isEnabled()) << "a match takes two breaks";
    EXPECT_TRUE(view.acceptButton()->isEnabled());
    EXPECT_FALSE(view.feeButton()->isEnabled()) << "neither is a fee_variance";
    view.selectBreaks({0, 1});
    ASSERT_TRUE(view.matchButton()->isEnabled());
    EXPECT_FALSE(view.acceptButton()->isEnabled());

    ProposeDialog *dialog = view.proposeMatch();
    ASSERT_NE(dialog, nullptr);
    dialog->reasonField()->setText(QStringLiteral("channel used its own id, REC-31"));
    QTest::keyClicks(dialog->confirmField(), QStringLiteral("2"));
    ASSERT_TRUE(dialog->complete());
    QSignalSpy proposed(&view, &ReconView::proposed);
    dialog->submit();
    ASSERT_TRUE(proposed.wait(10000)) << qPrintable(dialog->result()->text());
    const ActionRecord record = proposed.first().first().value<ActionRecord>();
    EXPECT_EQ(record.kind, QStringLiteral("recon_break.match"));
    EXPECT_EQ(record.targets, 2);
    // The proposal is on each break's timeline, after the run that raised it.
    QSignalSpy shown(&view, &ReconView::breakShown);
    view.selectBreak(1);
    ASSERT_TRUE(shown.wait(10000));
    const QString timeline = view.timeline()->text();
    EXPECT_GT(timeline.indexOf(QLatin1String("recon_break.match proposed by")),
              timeline.indexOf(QLatin1String("raised by run")))
        << qPrintable(timeline);
    EXPECT_GE(timeline.indexOf(QLatin1String("raised by run")), 0) << qPrintable(timeline);

    auto approver = QtSqlConnections::connect(loginAs(QStringLiteral("keel_approver")),
                                              QStringLiteral("recon-view-approver"));
    ASSERT_TRUE(approver.ok());
    AttentionScope reconOnly;
    reconOnly.reconciliation = true;
    auto headline = Attention::load(*approver, reconOnly);
    ASSERT_TRUE(headline.ok());
    EXPECT_EQ(headline->reconBreaks, 2);
    ActionDesk checker(*approver);
    ASSERT_TRUE(checker.approve(record.id, record.contentHash).ok());
    auto executed = checker.execute(record.id);
    ASSERT_TRUE(executed.ok()) << qPrintable(executed.error().message);
    EXPECT_EQ(executed->applied, 2);
    EXPECT_EQ(Attention::load(*approver, reconOnly)->reconBreaks, 0);

    view.refresh();
    ASSERT_TRUE(refreshed.wait(10000));
    EXPECT_EQ(view.breaks()->rowCount(), 0);
    EXPECT_TRUE(cell(view.runs(), 0, 5).isEmpty()) << qPrintable(cell(view.runs(), 0, 5));
}

// Take-back is offered for a payment the channel reported and took back,
// not for one it never reported; the database still decides, and refuses a
// break that names no charge of keel's.
TEST_F(ReconViewTest, TakeBackIsOfferedWhereTheChannelHoldsLessAndTheDatabaseDecides)
{
    addOursMissingAtChannel();
    ReconView view(m_worker.get());
    view.show();
    QSignalSpy refreshed(&view, &ReconView::refreshed);
    view.refresh();
    ASSERT_TRUE(refreshed.wait(10000));
    ASSERT_EQ(view.breaks()->rowCount(), 2);
    const int ours = cell(view.breaks(), 0, 4) == QLatin1String("ch_ours0000000001") ? 0 : 1;

    view.selectBreak(1 - ours);
    EXPECT_FALSE(view.takeBackButton()->isEnabled()) << "keel holds nothing of it";
    EXPECT_EQ(view.proposeTakeBack(BreakResolutions::TakeBackBearer::Merchant), nullptr);
    view.selectBreak(ours);
    EXPECT_FALSE(view.takeBackButton()->isEnabled())
        << "the channel never reported it: it may yet, or under its own id";

    exec("UPDATE keel.recon_breaks SET class = 'status_mismatch' "
         "WHERE reference = 'ch_ours0000000001'");
    view.refresh();
    ASSERT_TRUE(refreshed.wait(10000));
    view.selectBreak(cell(view.breaks(), 0, 4) == QLatin1String("ch_ours0000000001") ? 0 : 1);
    ASSERT_TRUE(view.takeBackButton()->isEnabled());
    ProposeDialog *dialog = view.proposeTakeBack(BreakResolutions::TakeBackBearer::Merchant);
    ASSERT_NE(dialog, nullptr);
    dialog->reasonField()->setText(QStringLiteral("dispute lost, REC-40"));
    QTest::keyClicks(dialog->confirmField(), QStringLiteral("1"));
    ASSERT_TRUE(dialog->complete());
    QSignalSpy refused(dialog, &ProposeDialog::refused);
    dialog->submit();
    ASSERT_TRUE(refused.wait(10000)) << qPrintable(dialog->result()->text());
    EXPECT_TRUE(refused.first().first().toString().contains(QLatin1String("names no charge")))
        << qPrintable(refused.first().first().toString());
}

// The statements imported are listed; the one selected is withdrawn through a
// proposal, and once withdrawn it cannot be proposed again.
TEST_F(ReconViewTest, AStatementIsWithdrawnThroughAProposal)
{
    ReconView view(m_worker.get());
    view.show();
    QSignalSpy refreshed(&view, &ReconView::refreshed);
    view.refresh();
    ASSERT_TRUE(refreshed.wait(10000));
    ASSERT_EQ(view.statements()->rowCount(), 1);
    EXPECT_EQ(cell(view.statements(), 0, 3), QStringLiteral("2")) << "its lines";
    EXPECT_FALSE(view.withdrawButton()->isEnabled()) << "nothing selected";
    view.statements()->selectRow(0);
    ASSERT_TRUE(view.withdrawButton()->isEnabled());

    ProposeDialog *dialog = view.proposeWithdrawal();
    ASSERT_NE(dialog, nullptr);
    dialog->reasonField()->setText(QStringLiteral("yesterday's file imported as today's, REC-40"));
    QTest::keyClicks(dialog->confirmField(), QStringLiteral("1"));
    QSignalSpy proposed(&view, &ReconView::proposed);
    dialog->submit();
    ASSERT_TRUE(proposed.wait(10000)) << qPrintable(dialog->result()->text());
    const ActionRecord record = proposed.first().first().value<ActionRecord>();
    EXPECT_EQ(record.kind, QStringLiteral("recon_statement.withdraw"));

    auto approver = QtSqlConnections::connect(loginAs(QStringLiteral("keel_approver")),
                                              QStringLiteral("recon-view-withdraw"));
    ASSERT_TRUE(approver.ok());
    ActionDesk checker(*approver);
    ASSERT_TRUE(checker.approve(record.id, record.contentHash).ok());
    auto executed = checker.execute(record.id);
    ASSERT_TRUE(executed.ok()) << qPrintable(executed.error().message);
    EXPECT_EQ(executed->applied, 1);

    view.refresh();
    ASSERT_TRUE(refreshed.wait(10000));
    EXPECT_FALSE(cell(view.statements(), 0, 7).isEmpty()) << "withdrawn, and when";
    view.statements()->selectRow(0);
    EXPECT_FALSE(view.withdrawButton()->isEnabled());

    // The break its line bore on waits for its day to run again: shown so,
    // and nothing is offered on it until then.
    ASSERT_EQ(view.breaks()->rowCount(), 1);
    EXPECT_TRUE(cell(view.breaks(), 0, 7).contains(QLatin1String("awaiting a run")))
        << qPrintable(cell(view.breaks(), 0, 7));
    QSignalSpy shown(&view, &ReconView::breakShown);
    view.selectBreak(0);
    ASSERT_TRUE(shown.wait(10000));
    EXPECT_FALSE(view.acceptButton()->isEnabled());
    EXPECT_TRUE(view.keelSide()->text().contains(QLatin1String("Run sim's 2026-11-20 again")))
        << qPrintable(view.keelSide()->text());
}
