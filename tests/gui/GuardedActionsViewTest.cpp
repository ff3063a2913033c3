#include "MigratedDatabaseTest.h"
#include "MoneyCase.h"

#include "core/db/LibpqConnection.h"
#include "ui/ActionReviewPane.h"
#include "ui/AdjustmentDialog.h"
#include "ui/ApprovalsView.h"
#include "ui/AttentionBar.h"
#include "ui/ConsoleSettings.h"
#include "ui/MainWindow.h"
#include "ui/OperationsPanel.h"
#include "ui/OutboxView.h"
#include "ui/ProposeDialog.h"
#include "ui/QueryWorker.h"
#include "ui/SagasView.h"
#include "ui/SuspenseView.h"

#include "core/ops/QueuedActions.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QTreeWidget>

using namespace keel;
using keel::test::MigratedDatabaseTest;

// Guarded actions clicked through the console's own views, on real logins.
class GuardedActionsViewTest : public MigratedDatabaseTest {
protected:
    void SetUp() override
    {
        MigratedDatabaseTest::SetUp();
        ASSERT_FALSE(HasFatalFailure());
        for (int i = 1; i <= 3; ++i)
            park(QStringLiteral("ch_%1").arg(i));
    }
    QString admin(const QByteArray &sql)
    {
        auto session = LibpqConnection::open(settings());
        EXPECT_TRUE(session.ok());
        auto value = session.ok() ? session->scalar(sql) : Result<QString>(session.error());
        EXPECT_TRUE(value.ok()) << sql.constData();
        return value.ok() ? *value : QString();
    }
    QString park(const QString &aggregate)
    {
        return admin("INSERT INTO keel.outbox (aggregate_type, aggregate_id, event_type, payload, "
                     "attempts, last_error, parked_at) VALUES ('charge', '" +
                     aggregate.toLatin1() +
                     "', 'charge.succeeded', '{}', 5, 'returned: no queue is bound', now()) "
                     "RETURNING id");
    }
    // A running saga `ageSeconds` old whose one step has had `attempts`.
    void addRunningSaga(const char *publicId, int ageSeconds, int attempts)
    {
        const QByteArray step = R"({"action_url": "http://127.0.0.1:9/confirm", "payload": {}, )"
                                R"("retry": {"attempts": 9}})";
        admin("WITH s AS (INSERT INTO keel.sagas (kind, public_id, status, current_step, "
              "created_at, next_attempt_at) VALUES ('order', '" +
              QByteArray(publicId) + "', 'running', 0, now() - interval '" +
              QByteArray::number(ageSeconds) +
              " seconds', now() + interval '1 hour') RETURNING id) "
              "INSERT INTO keel.saga_steps (saga_id, step_index, name, kind, definition, status, "
              "attempts, last_error) SELECT id, 0, 'confirm', 'http', '" +
              step + "', 'running', " + QByteArray::number(attempts) +
              ", 'HTTP 503' FROM s RETURNING 1");
    }
    std::unique_ptr<QueryWorker> worker(const ConnectionSettings &login)
    {
        auto started = std::make_unique<QueryWorker>(login);
        started->start();
        return started;
    }
    // Proposes a resend of every listed parked message through the dialog.
    qint64 proposeGroupResend(OutboxView &outbox)
    {
        QSignalSpy refreshed(&outbox, &OutboxView::refreshed);
        outbox.refresh();
        EXPECT_TRUE(refreshed.wait(10000));
        ProposeDialog *dialog = outbox.proposeResendOfGroup();
        EXPECT_NE(dialog, nullptr);
        if (!dialog)
            return 0;
        const int count = outbox.messages()->rowCount();
        dialog->reasonField()->setText(QStringLiteral("queue bound again, INC-7"));
        EXPECT_FALSE(dialog->complete()) << "the count is not typed yet";
        QTest::keyClicks(dialog->confirmField(), QString::number(count));
        EXPECT_TRUE(dialog->complete());
        QSignalSpy proposed(&outbox, &OutboxView::proposed);
        dialog->submit();
        EXPECT_TRUE(proposed.wait(10000)) << qPrintable(dialog->result()->text());
        return proposed.isEmpty() ? 0 : proposed.first().first().value<ActionRecord>().id;
    }
    // Approves proposal `id` in `checker`, then executes it there.
    void approveThenExecute(ApprovalsView &checker, qint64 id)
    {
        checker.setAccess(true, true);
        refreshAll(checker);
        showReview(checker, id);
        QSignalSpy acted(&checker, &ApprovalsView::acted);
        checker.approveSelected(QString());
        ASSERT_TRUE(acted.wait(10000));
        ASSERT_TRUE(acted.first().first().toBool()) << qPrintable(checker.result()->text());
        refreshAll(checker);
        ASSERT_TRUE(checker.select(id));
        acted.clear();
        checker.executeSelected();
        ASSERT_TRUE(acted.wait(10000));
    }
    // Selects proposal `id` and waits until its review is on the screen, as an
    // approver sees it before the Approve button takes effect.
    void showReview(ApprovalsView &approvals, qint64 id)
    {
        QSignalSpy reviewed(&approvals, &ApprovalsView::reviewed);
        approvals.table()->clearSelection();
        ASSERT_TRUE(approvals.select(id));
        ASSERT_TRUE(reviewed.wait(10000));
        EXPECT_EQ(
            approvals.review()->targets()->rowCount(),
            admin("SELECT jsonb_array_length(targets) FROM keel.operator_actions WHERE id = " +
                  QByteArray::number(id))
                .toInt());
    }
    void refreshAll(ApprovalsView &approvals)
    {
        QSignalSpy refreshed(&approvals, &ApprovalsView::refreshed);
        approvals.queueChoice()->setCurrentIndex(1);
        if (refreshed.isEmpty())
            approvals.refresh();
        ASSERT_TRUE(refreshed.wait(10000));
    }
};

TEST_F(GuardedActionsViewTest, OwnApprovalIsRefusedByTheServerThenASecondLoginApprovesAndItRuns)
{
    // One person who holds both roles: exactly what maker-checker stops.
    const ConnectionSettings both = loginAs(QStringLiteral("keel_operator"));
    {
        auto session = LibpqConnection::open(settings());
        ASSERT_TRUE(session.ok());
        ASSERT_TRUE(
            session->exec("GRANT keel_approver TO " + both.value(QStringLiteral("user")).toLatin1())
                .ok());
    }
    auto makerWorker = worker(both);
    OutboxView outbox(makerWorker.get());
    outbox.setCanPropose(true);
    const qint64 id = proposeGroupResend(outbox);
    ASSERT_GT(id, 0);

    ApprovalsView own(makerWorker.get());
    own.setAccess(true, true);
    refreshAll(own);
    showReview(own, id);
    ASSERT_TRUE(own.approveButton()->isEnabled());
    QSignalSpy acted(&own, &ApprovalsView::acted);
    own.approveSelected(QString());
    ASSERT_TRUE(acted.wait(10000));
    EXPECT_FALSE(acted.first().at(0).toBool());
    EXPECT_TRUE(own.result()->text().contains(QLatin1String("maker-checker")))
        << qPrintable(own.result()->text());
    EXPECT_EQ(admin("SELECT status FROM keel.operator_actions"), QStringLiteral("proposed"));

    auto checkerWorker = worker(loginAs(QStringLiteral("keel_approver")));
    ApprovalsView checker(checkerWorker.get());
    checker.setAccess(true, true);
    QSignalSpy listed(&checker, &ApprovalsView::refreshed);
    checker.refresh(); // "waiting for me": another's proposal
    ASSERT_TRUE(listed.wait(10000));
    showReview(checker, id);
    QSignalSpy approved(&checker, &ApprovalsView::acted);
    EXPECT_TRUE(checker.approveButton()->isEnabled());
    // The button asks for a comment in a modal dialog first; this is its path after it.
    checker.approveSelected(QStringLiteral("binding checked"));
    ASSERT_TRUE(approved.wait(10000));
    EXPECT_TRUE(approved.first().at(0).toBool()) << qPrintable(checker.result()->text());

    refreshAll(own);
    ASSERT_TRUE(own.select(id));
    ASSERT_TRUE(own.executeButton()->isEnabled());
    acted.clear();
    QTest::mouseClick(own.executeButton(), Qt::LeftButton);
    ASSERT_TRUE(acted.wait(10000));
    EXPECT_TRUE(acted.first().at(0).toBool()) << qPrintable(own.result()->text());
    EXPECT_TRUE(own.result()->text().contains(QLatin1String("3 applied")))
        << qPrintable(own.result()->text());
    EXPECT_EQ(admin("SELECT count(*) FROM keel.outbox WHERE resend_of IS NOT NULL"),
              QStringLiteral("3"));
}

TEST_F(GuardedActionsViewTest, AnApprovedProposalThatExpiredCannotExecute)
{
    // Proposals live five seconds here; policy, changed in one place.
    admin("UPDATE keel.ops_policy SET proposal_ttl = interval '5 seconds' RETURNING 1");
    auto makerWorker = worker(loginAs(QStringLiteral("keel_sre")));
    OutboxView outbox(makerWorker.get());
    outbox.setCanPropose(true);
    const qint64 id = proposeGroupResend(outbox);
    ASSERT_GT(id, 0);
    auto checkerWorker = worker(loginAs(QStringLiteral("keel_approver")));
    ApprovalsView checker(checkerWorker.get());
    checker.setAccess(true, true);
    refreshAll(checker);
    showReview(checker, id);
    QSignalSpy acted(&checker, &ApprovalsView::acted);
    checker.approveSelected(QStringLiteral("looks right"));
    ASSERT_TRUE(acted.wait(10000));
    ASSERT_TRUE(acted.first().first().toBool()) << qPrintable(checker.result()->text());
    refreshAll(checker);
    ASSERT_TRUE(checker.select(id));
    ASSERT_TRUE(checker.executeButton()->isEnabled()) << "approved and not yet expired";

    // The list on screen is now stale: the proposal expires while it shows.
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return admin("SELECT expires_at < now() FROM keel.operator_actions WHERE id = " +
                         QByteArray::number(id)) == QLatin1String("t");
        },
        10000));
    acted.clear();
    QTest::mouseClick(checker.executeButton(), Qt::LeftButton);
    ASSERT_TRUE(acted.wait(10000));
    EXPECT_FALSE(acted.first().first().toBool());
    EXPECT_TRUE(checker.result()->text().contains(QLatin1String("expired")))
        << qPrintable(checker.result()->text());
    EXPECT_EQ(
        admin("SELECT status FROM keel.operator_actions WHERE id = " + QByteArray::number(id)),
        QStringLiteral("expired"));
    EXPECT_EQ(admin("SELECT count(*) FROM keel.outbox WHERE resend_of IS NOT NULL"),
              QStringLiteral("0"))
        << "nothing was resent";
    refreshAll(checker);
    ASSERT_TRUE(checker.select(id));
    EXPECT_FALSE(checker.executeButton()->isEnabled()) << "an expired proposal offers nothing";
}

TEST_F(GuardedActionsViewTest, ABulkResendTouchesOnlyTheFrozenSelection)
{
    auto makerWorker = worker(loginAs(QStringLiteral("keel_sre")));
    OutboxView outbox(makerWorker.get());
    outbox.setCanPropose(true);
    const qint64 id = proposeGroupResend(outbox);
    ASSERT_GT(id, 0);
    const QString later = park(QStringLiteral("ch_after_the_selection"));

    auto checkerWorker = worker(loginAs(QStringLiteral("keel_approver")));
    ApprovalsView checker(checkerWorker.get());
    approveThenExecute(checker, id); // an approver may execute too
    EXPECT_TRUE(checker.result()->text().contains(QLatin1String("3 applied, 0 skipped")))
        << qPrintable(checker.result()->text());
    EXPECT_EQ(admin("SELECT resent_at IS NULL FROM keel.outbox WHERE id = " + later.toLatin1()),
              QStringLiteral("t"));
    QSignalSpy refreshed(&outbox, &OutboxView::refreshed);
    outbox.refresh();
    ASSERT_TRUE(refreshed.wait(10000));
    ASSERT_EQ(outbox.messages()->rowCount(), 1) << "only the late message still needs a person";
    EXPECT_EQ(outbox.messages()->item(0, 0)->text(), later);
}

TEST_F(GuardedActionsViewTest, ParkedMessagesComeInPagesAndLoadMoreReachesTheLast)
{
    admin("INSERT INTO keel.outbox (aggregate_type, aggregate_id, event_type, payload, attempts, "
          "last_error, parked_at) SELECT 'charge', 'ch_many' || g, 'charge.succeeded', '{}', 5, "
          "'returned: no queue is bound', now() FROM generate_series(1, 600) g RETURNING 1");
    auto sre = worker(loginAs(QStringLiteral("keel_sre")));
    OutboxView outbox(sre.get());
    QSignalSpy refreshed(&outbox, &OutboxView::refreshed);
    outbox.refresh();
    ASSERT_TRUE(refreshed.wait(10000));
    QPushButton *more = nullptr;
    for (QPushButton *button : outbox.findChildren<QPushButton *>())
        if (button->text() == QStringLiteral("&Load more"))
            more = button;
    ASSERT_NE(more, nullptr);
    ASSERT_EQ(outbox.messages()->rowCount(), 500);
    ASSERT_TRUE(more->isEnabled());
    QTest::mouseClick(more, Qt::LeftButton);
    ASSERT_TRUE(refreshed.wait(10000));
    ASSERT_EQ(outbox.messages()->rowCount(), 603) << "the three from SetUp and the 600";
    EXPECT_FALSE(more->isEnabled());
    QSet<QString> ids;
    for (int row = 0; row < outbox.messages()->rowCount(); ++row)
        ids.insert(outbox.messages()->item(row, 0)->text());
    EXPECT_EQ(ids.size(), 603) << "no message listed twice";
}

TEST_F(GuardedActionsViewTest, AnAuditorIsOfferedNoAction)
{
    ConsoleSettings consoleSettings;
    auto auditor = worker(loginAs(QStringLiteral("keel_auditor")));
    MainWindow window(auditor.get(), &consoleSettings);
    window.show();
    QSignalSpy loaded(&window, &MainWindow::sessionLoaded);
    ASSERT_TRUE(loaded.wait(15000));
    ASSERT_TRUE(window.showView(QStringLiteral("outbox")));
    QSignalSpy refreshed(window.outbox(), &OutboxView::refreshed);
    window.outbox()->refresh();
    ASSERT_TRUE(refreshed.wait(10000));
    ASSERT_EQ(window.outbox()->messages()->rowCount(), 3);
    window.outbox()->messages()->selectAll();
    EXPECT_FALSE(window.outbox()->resendSelectedButton()->isEnabled());
    EXPECT_FALSE(window.outbox()->resendGroupButton()->isEnabled());
    EXPECT_EQ(window.outbox()->proposeResendOfGroup(), nullptr);

    // A proposal someone else made is listed, and nothing can be done to it.
    auto makerWorker = worker(loginAs(QStringLiteral("keel_operator")));
    OutboxView makerOutbox(makerWorker.get());
    makerOutbox.setCanPropose(true);
    const qint64 id = proposeGroupResend(makerOutbox);
    ASSERT_GT(id, 0);
    ASSERT_TRUE(window.showView(QStringLiteral("approvals")));
    refreshAll(*window.approvals());
    ASSERT_TRUE(window.approvals()->select(id));
    EXPECT_FALSE(window.approvals()->approveButton()->isEnabled());
    EXPECT_FALSE(window.approvals()->rejectButton()->isEnabled());
    EXPECT_FALSE(window.approvals()->executeButton()->isEnabled());
    EXPECT_TRUE(window.viewEnabled(QStringLiteral("audit")));
}

TEST_F(GuardedActionsViewTest, AStuckSagaIsFoundFirstAndRetriedOnceApproved)
{
    // Two healthy sagas and one stuck for an hour on a step that keeps failing.
    addRunningSaga("saga_fresh0000001", 10, 0);
    addRunningSaga("saga_stuck0000001", 3600, 6);
    addRunningSaga("saga_fresh0000002", 20, 1);

    auto sreWorker = worker(loginAs(QStringLiteral("keel_sre")));
    SagasView sagas(sreWorker.get());
    sagas.setAccess(true, false);
    QSignalSpy listed(&sagas, &SagasView::listed);
    sagas.search();
    ASSERT_TRUE(listed.wait(10000));
    ASSERT_EQ(sagas.list()->rowCount(), 3);
    EXPECT_EQ(sagas.list()->item(0, 0)->text(), QStringLiteral("saga_stuck0000001"));
    EXPECT_EQ(sagas.list()->item(0, 3)->text(), QStringLiteral("stuck"));
    QSignalSpy shown(&sagas, &SagasView::sagaShown);
    sagas.selectSaga(0);
    ASSERT_TRUE(shown.wait(10000));
    EXPECT_EQ(sagas.steps()->item(0, 3)->text(), QStringLiteral("6"));
    EXPECT_TRUE(sagas.actionButton(SagasView::Action::RetryNow)->isEnabled());
    EXPECT_FALSE(sagas.actionButton(SagasView::Action::Park)->isEnabled())
        << "parking moves money: not an SRE's to propose";
    EXPECT_FALSE(sagas.actionButton(SagasView::Action::Resume)->isEnabled());

    ProposeDialog *dialog = sagas.propose(SagasView::Action::RetryNow);
    ASSERT_NE(dialog, nullptr);
    dialog->reasonField()->setText(QStringLiteral("confirm service back, INC-12"));
    QTest::keyClicks(dialog->confirmField(), QStringLiteral("1"));
    QSignalSpy proposed(&sagas, &SagasView::proposed);
    dialog->submit();
    ASSERT_TRUE(proposed.wait(10000)) << qPrintable(dialog->result()->text());
    const qint64 id = proposed.first().first().value<ActionRecord>().id;

    auto checkerWorker = worker(loginAs(QStringLiteral("keel_approver")));
    ApprovalsView checker(checkerWorker.get());
    approveThenExecute(checker, id);
    EXPECT_TRUE(checker.result()->text().contains(QLatin1String("Queued")))
        << qPrintable(checker.result()->text());

    auto gateway = LibpqConnection::open(loginAs(QStringLiteral("keel_gateway")));
    ASSERT_TRUE(gateway.ok());
    auto ran = QueuedActions(*gateway).runOnce();
    ASSERT_TRUE(ran.ok()) << qPrintable(ran.error().message);
    EXPECT_EQ(*ran, 1);
    EXPECT_EQ(admin("SELECT status FROM keel.operator_actions"), QStringLiteral("executed"));
    EXPECT_EQ(admin("SELECT next_attempt_at <= now() FROM keel.sagas WHERE public_id = "
                    "'saga_stuck0000001'"),
              QStringLiteral("t"));
    EXPECT_EQ(admin("SELECT count(*) FROM keel.sagas WHERE next_attempt_at <= now()"),
              QStringLiteral("1"))
        << "only the saga the operator saw";
    sagas.selectSaga(0);
    ASSERT_TRUE(shown.wait(10000));
    bool logged = false;
    for (int i = 0; i < sagas.timeline()->topLevelItemCount(); ++i)
        logged = logged ||
                 sagas.timeline()->topLevelItem(i)->text(2) == QLatin1String("operator_retry_now");
    EXPECT_TRUE(logged) << "the timeline shows the action";
}

TEST_F(GuardedActionsViewTest, ABulkRetryFreezesTheSelectedSagasAndSkipsOneThatChanged)
{
    addRunningSaga("saga_stuck0000001", 3600, 6);
    addRunningSaga("saga_stuck0000002", 3500, 7);
    addRunningSaga("saga_stuck0000003", 3400, 8);
    auto sreWorker = worker(loginAs(QStringLiteral("keel_sre")));
    SagasView sagas(sreWorker.get());
    sagas.setAccess(true, false);
    sagas.resize(1000, 700);
    sagas.show();
    QSignalSpy listed(&sagas, &SagasView::listed);
    sagas.search();
    ASSERT_TRUE(listed.wait(10000));
    ASSERT_EQ(sagas.list()->rowCount(), 3);
    // The operator picks the first two with the mouse: click, then Ctrl+click.
    QTableWidget *list = sagas.list();
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                      list->visualItemRect(list->item(0, 0)).center());
    QTest::mouseClick(list->viewport(), Qt::LeftButton, Qt::ControlModifier,
                      list->visualItemRect(list->item(1, 0)).center());
    ASSERT_EQ(list->selectionModel()->selectedRows().size(), 2);
    ASSERT_TRUE(sagas.actionButton(SagasView::Action::RetryNow)->isEnabled());

    ProposeDialog *dialog = sagas.propose(SagasView::Action::RetryNow);
    ASSERT_NE(dialog, nullptr);
    dialog->reasonField()->setText(QStringLiteral("confirm service back, INC-14"));
    QTest::keyClicks(dialog->confirmField(), QStringLiteral("1"));
    EXPECT_FALSE(dialog->complete()) << "the count typed must be the count shown";
    dialog->confirmField()->clear();
    QTest::keyClicks(dialog->confirmField(), QStringLiteral("2"));
    QSignalSpy proposed(&sagas, &SagasView::proposed);
    dialog->submit();
    ASSERT_TRUE(proposed.wait(10000)) << qPrintable(dialog->result()->text());
    const qint64 id = proposed.first().first().value<ActionRecord>().id;
    EXPECT_EQ(admin("SELECT jsonb_array_length(targets) FROM keel.operator_actions WHERE id = " +
                    QByteArray::number(id)),
              QStringLiteral("2"));

    // The worker moves the second saga on before anyone approves.
    admin("UPDATE keel.sagas SET version = version + 1 WHERE public_id = 'saga_stuck0000002' "
          "RETURNING 1");
    auto checkerWorker = worker(loginAs(QStringLiteral("keel_approver")));
    ApprovalsView checker(checkerWorker.get());
    approveThenExecute(checker, id);
    auto gateway = LibpqConnection::open(loginAs(QStringLiteral("keel_gateway")));
    ASSERT_TRUE(gateway.ok());
    auto ran = QueuedActions(*gateway).runOnce();
    ASSERT_TRUE(ran.ok()) << qPrintable(ran.error().message);
    EXPECT_EQ(admin("SELECT string_agg(public_id, ',' ORDER BY public_id) FROM keel.sagas "
                    "WHERE next_attempt_at <= now()"),
              QStringLiteral("saga_stuck0000001"))
        << "the changed saga and the one not selected are left alone";
}

TEST_F(GuardedActionsViewTest, ACaseIsTakenNotedAndItsCompensationProposedFromTheWorkbench)
{
    admin("WITH s AS (INSERT INTO keel.sagas (kind, public_id, status, current_step) "
          "  VALUES ('order', 'saga_parked0000001', 'parked', 1) RETURNING id) "
          "INSERT INTO keel.suspense_cases (saga_id, amount, reason, opened_at) "
          "  SELECT id, 0, 'compensation failed 3 rounds', now() - interval '4 days' FROM s "
          "RETURNING 1");
    auto operatorWorker = worker(loginAs(QStringLiteral("keel_operator")));
    SuspenseView workbench(operatorWorker.get());
    workbench.setAccess(true, true, {});
    QSignalSpy listed(&workbench, &SuspenseView::listed);
    workbench.refresh();
    ASSERT_TRUE(listed.wait(10000));
    ASSERT_EQ(workbench.queue()->rowCount(), 1);
    EXPECT_TRUE(workbench.queue()->item(0, 7)->text().startsWith(QLatin1String("overdue")));
    QSignalSpy shown(&workbench, &SuspenseView::caseShown);
    workbench.selectCase(0);
    ASSERT_TRUE(shown.wait(10000));

    QSignalSpy acted(&workbench, &SuspenseView::acted);
    ASSERT_TRUE(workbench.takeButton()->isEnabled());
    QTest::mouseClick(workbench.takeButton(), Qt::LeftButton);
    ASSERT_TRUE(acted.wait(10000));
    EXPECT_TRUE(acted.takeFirst().at(0).toBool()) << qPrintable(workbench.result()->text());
    ASSERT_TRUE(listed.wait(10000));
    EXPECT_TRUE(workbench.queue()->item(0, 5)->text().startsWith(QLatin1String("t_keel_operator")));
    EXPECT_EQ(workbench.queue()->item(0, 6)->text(), QStringLiteral("in review"));

    workbench.selectCase(0);
    workbench.addNoteToSelected(QStringLiteral("refund bounced at the bank"),
                                QStringLiteral("ICBC-77"));
    ASSERT_TRUE(acted.wait(10000));
    EXPECT_TRUE(acted.takeFirst().at(0).toBool()) << qPrintable(workbench.result()->text());
    shown.clear();
    ASSERT_TRUE(shown.wait(10000)); // the refreshed queue shows the case again
    bool noted = false;
    for (int i = 0; i < workbench.trail()->topLevelItemCount(); ++i)
        noted = noted || workbench.trail()->topLevelItem(i)->text(2).contains(
                             QLatin1String("refund bounced at the bank [ICBC-77]"));
    EXPECT_TRUE(noted);

    ProposeDialog *dialog = workbench.proposeRetryCompensation();
    ASSERT_NE(dialog, nullptr);
    dialog->reasonField()->setText(QStringLiteral("bank fixed the account"));
    QTest::keyClicks(dialog->confirmField(), QStringLiteral("1"));
    QSignalSpy proposed(&workbench, &SuspenseView::proposed);
    dialog->submit();
    ASSERT_TRUE(proposed.wait(10000)) << qPrintable(dialog->result()->text());
    EXPECT_EQ(admin("SELECT kind || ' ' || target_id FROM keel.operator_actions"),
              QStringLiteral("saga.resume saga_parked0000001"));
}

TEST_F(GuardedActionsViewTest, TheHeadlineCountsWhatNeedsAPersonAndOpensItsList)
{
    admin("WITH s AS (INSERT INTO keel.sagas (kind, public_id, status, current_step, created_at) "
          "  VALUES ('order', 'saga_stuck0000009', 'running', 0, now() - interval '1 hour') "
          "  RETURNING id) "
          "INSERT INTO keel.suspense_cases (saga_id, amount, reason, opened_at) "
          "  SELECT id, 0, 'compensation failed 3 rounds', now() - interval '4 days' FROM s "
          "RETURNING 1");
    // A channel's notice about a charge keel never made, kept for a person:
    // it opens a case of its own (migration 0021).
    admin("INSERT INTO keel.channel_notifications (channel, notice_id, reference, outcome, "
          "verdict) VALUES ('alipay', 'n-9', 'ch_unknown0000000009', 'failed', 'unknown_charge') "
          "RETURNING 1");
    ConsoleSettings consoleSettings;
    auto sre = worker(loginAs(QStringLiteral("keel_sre")));
    MainWindow window(sre.get(), &consoleSettings);
    window.show();
    QSignalSpy counted(window.attention(), &AttentionBar::refreshed);
    QSignalSpy figured(window.operations(), &OperationsPanel::refreshed);
    ASSERT_TRUE(counted.wait(15000));
    ASSERT_TRUE(figured.count() > 0 || figured.wait(15000));
    const OperationsNow now = window.operations()->figures();
    EXPECT_EQ(now.outboxParked, 3);
    EXPECT_EQ(now.outboxBacklog, 0);
    EXPECT_EQ(now.sagasRunning, 1);
    EXPECT_EQ(now.sagasStuck, 1);
    EXPECT_EQ(now.casesByAge, (std::array<qint64, 4>{1, 0, 1, 0}))
        << "the notice's today, the saga's 4 days ago";
    const AttentionCounts counts = window.attention()->counts();
    EXPECT_EQ(counts.parkedMessages, 3);
    EXPECT_EQ(counts.stuckSagas, 1);
    EXPECT_EQ(counts.overdueCases, 1);
    EXPECT_EQ(counts.channelNotices, 1);
    EXPECT_TRUE(window.attention()
                    ->button(QStringLiteral("notices"))
                    ->text()
                    .startsWith(QLatin1String("1 channel notice")));
    EXPECT_EQ(counts.waitingProposals, 0);
    EXPECT_EQ(counts.reconBreaks, -1) << "an SRE does not read reconciliation breaks";
    ASSERT_NE(window.attention()->button(QStringLiteral("outbox")), nullptr);
    EXPECT_TRUE(window.attention()
                    ->button(QStringLiteral("outbox"))
                    ->text()
                    .startsWith(QLatin1String("3 parked")));

    QTest::mouseClick(window.attention()->button(QStringLiteral("sagas")), Qt::LeftButton);
    EXPECT_EQ(window.currentView(), QStringLiteral("sagas"));
    EXPECT_TRUE(window.sagas()->stuckOnly()->isChecked());
    QTest::mouseClick(window.attention()->button(QStringLiteral("outbox")), Qt::LeftButton);
    EXPECT_EQ(window.currentView(), QStringLiteral("outbox"));
}

TEST_F(GuardedActionsViewTest, AnAdjustmentThatDoesNotBalanceCannotBeProposedAndOneThatDoesCan)
{
    {
        auto session = LibpqConnection::open(settings());
        ASSERT_TRUE(session.ok());
        ASSERT_TRUE(session->exec(keel::test::MoneyCaseSql).ok());
    }
    const QString payable = admin("SELECT code FROM keel.ledger_accounts WHERE kind = 'liability'");

    auto operatorWorker = worker(loginAs(QStringLiteral("keel_operator")));
    SuspenseView workbench(operatorWorker.get());
    workbench.setAccess(true, true, {});
    QSignalSpy listed(&workbench, &SuspenseView::listed);
    workbench.refresh();
    ASSERT_TRUE(listed.wait(10000));
    workbench.selectCase(0);
    ASSERT_TRUE(workbench.adjustButton()->isEnabled());
    EXPECT_FALSE(workbench.giveBackButton()->isEnabled())
        << "money parked on no charge is no take-back to give back";
    AdjustmentDialog *adjustment = workbench.composeAdjustment();
    ASSERT_NE(adjustment, nullptr);
    QSignalSpy ready(adjustment, &AdjustmentDialog::ready);
    ASSERT_TRUE(ready.wait(10000));
    adjustment->addLine(payable, QStringLiteral("-170.00"));
    EXPECT_FALSE(adjustment->proposeButton()->isEnabled());
    EXPECT_TRUE(adjustment->sum()->text().contains(QStringLiteral("6.32 USD — does not balance")))
        << qPrintable(adjustment->sum()->text());
    EXPECT_EQ(adjustment->continueToProposal(), nullptr);

    auto *amount = qobject_cast<QLineEdit *>(adjustment->postings()->cellWidget(1, 1));
    ASSERT_NE(amount, nullptr);
    // Balanced, but charging one account to pay another: refused here already.
    amount->setText(QStringLiteral("-186.32"));
    adjustment->addLine(payable, QStringLiteral("10.00"));
    EXPECT_FALSE(adjustment->proposeButton()->isEnabled());
    EXPECT_TRUE(adjustment->sum()->text().contains(QLatin1String("negative amount")))
        << qPrintable(adjustment->sum()->text());
    qobject_cast<QComboBox *>(adjustment->postings()->cellWidget(2, 0))->setCurrentText({});
    qobject_cast<QLineEdit *>(adjustment->postings()->cellWidget(2, 1))->setText({});
    amount->setText(QStringLiteral("-176.32"));
    EXPECT_TRUE(adjustment->proposeButton()->isEnabled());
    EXPECT_TRUE(adjustment->sum()->text().contains(QLatin1String("balanced")));
    QSignalSpy proposed(&workbench, &SuspenseView::proposed);
    ProposeDialog *dialog = adjustment->continueToProposal();
    ASSERT_NE(dialog, nullptr);
    dialog->reasonField()->setText(QStringLiteral("merchant takes it back, ticket 44"));
    QTest::keyClicks(dialog->confirmField(), QStringLiteral("1"));
    dialog->submit();
    ASSERT_TRUE(proposed.wait(10000)) << qPrintable(dialog->result()->text());
    EXPECT_EQ(admin("SELECT kind || ' ' || (payload -> 'postings' -> 0 ->> 'amount') FROM "
                    "keel.operator_actions"),
              QStringLiteral("case.adjust -17632"));

    // The approver sees the postings before deciding.
    auto checkerWorker = worker(loginAs(QStringLiteral("keel_approver")));
    ApprovalsView checker(checkerWorker.get());
    checker.setAccess(true, true);
    refreshAll(checker);
    showReview(checker, proposed.first().first().value<ActionRecord>().id);
    EXPECT_TRUE(checker.details()->text().contains(payable + QStringLiteral("  -17632")))
        << qPrintable(checker.details()->text());
    // ... and what they do to each account: suspense emptied, the payable credited.
    QTableWidget *postings = checker.review()->postings();
    ASSERT_EQ(postings->rowCount(), 2);
    EXPECT_EQ(postings->item(0, 0)->text(), QStringLiteral("suspense:USD"));
    EXPECT_EQ(postings->item(0, 2)->text(), QStringLiteral("-176.32 USD"));
    EXPECT_EQ(postings->item(0, 3)->text(), QStringLiteral("0.00 USD"));
    EXPECT_EQ(postings->item(1, 0)->text(), payable);
    EXPECT_EQ(postings->item(1, 1)->text(), QStringLiteral("-176.32 USD"));
}
