// The manual actions and the saga list the console drives, on sagas run by a
// real worker against real participants.

#include "ManualActionsTest.h"

#include "core/db/QtSqlConnections.h"
#include "core/ops/ActionDesk.h"
#include "core/ops/QueuedActions.h"
#include "core/saga/SagaOperations.h"
#include "core/saga/SagaQuery.h"
#include "core/saga/SagaStore.h"

namespace keel::test {
namespace {

using Kind = SagaActionOutcome::Kind;

class SagaOperationsTest : public ManualActionsTest {
protected:
    SagaActionOutcome act(SagaAction action, const QString &id,
                          const QString &reason = QStringLiteral("INC-7: confirm service down"))
    {
        return SagaOperations(*m_service).apply({action, id, record(id).version, reason, {}});
    }
    QString auditViolations()
    {
        auto report = Ledger::audit(*m_connection);
        return report ? report->violations.join(u'\n') : report.error().message;
    }
};

TEST_F(SagaOperationsTest, RetryNowRunsAWaitingStepAtOnce)
{
    startWorker();
    const QString id = startWithConfirmDown(1);
    const SagaActionOutcome outcome = act(SagaAction::RetryNow, id);
    ASSERT_EQ(outcome.kind, Kind::Done) << qPrintable(outcome.message);
    waitFor(id, QStringLiteral("succeeded"), 5000);
    EXPECT_EQ(m_participant.calls("/confirm", id), 2);
    EXPECT_EQ(scalar("SELECT detail->>'reason' || ' by ' || (detail->>'actor' <> '') FROM "
                     "keel.saga_events WHERE event = 'operator_retry_now'"),
              QStringLiteral("INC-7: confirm service down by true"));
}

TEST_F(SagaOperationsTest, AnApprovedRetryIsCarriedOutByTheWorkerAndAnSreCannotPark)
{
    startWorker();
    const QString id = startWithConfirmDown(1);
    // Queued actions wait for a worker's login to take them: this test is the
    // only one until the saga is to go on.
    m_worker->stop();
    m_worker.reset();
    const QString version = QString::number(record(id).version);
    const ConnectionSettings sreLogin = loginAs(QStringLiteral("keel_sre"));
    auto sre = QtSqlConnections::connect(sreLogin, QStringLiteral("sre"));
    auto approver = QtSqlConnections::connect(loginAs(QStringLiteral("keel_approver")),
                                              QStringLiteral("approver"));
    ASSERT_TRUE(sre.ok() && approver.ok());
    auto park = ActionDesk(*sre).propose({QStringLiteral("saga.park"),
                                          QStringLiteral("saga"),
                                          id,
                                          {{id, version}},
                                          QStringLiteral("confirm is down"),
                                          ActionDesk::newIdempotencyKey(),
                                          {}});
    ASSERT_FALSE(park.ok());
    EXPECT_EQ(park.error().code, QLatin1String(ErrorCode::InsufficientPrivilege));

    auto retry = ActionDesk(*sre).propose({QStringLiteral("saga.retry_now"),
                                           QStringLiteral("saga"),
                                           id,
                                           {{id, version}},
                                           QStringLiteral("INC-9 fixed"),
                                           ActionDesk::newIdempotencyKey(),
                                           {}});
    ASSERT_TRUE(retry.ok()) << qPrintable(retry.error().message);
    ASSERT_TRUE(ActionDesk(*approver).approve(retry->id, retry->contentHash).ok());
    auto queued = ActionDesk(*sre).execute(retry->id);
    ASSERT_TRUE(queued.ok()) << qPrintable(queued.error().message);
    EXPECT_TRUE(queued->queued);
    EXPECT_EQ(m_participant.calls("/confirm", id), 1) << "nothing runs until a worker takes it";

    // The worker's login takes it; it could not have taken an unapproved one.
    auto gateway = LibpqConnection::open(loginAs(QStringLiteral("keel_gateway")));
    ASSERT_TRUE(gateway.ok());
    auto ran = QueuedActions(*gateway).runOnce();
    ASSERT_TRUE(ran.ok()) << qPrintable(ran.error().message);
    EXPECT_EQ(*ran, 1);
    startWorker(); // closes this thread's console connections as it checks the schema
    waitFor(id, QStringLiteral("succeeded"), 5000);
    auto done =
        ActionDesk(*QtSqlConnections::connect(sreLogin, QStringLiteral("sre"))).find(retry->id);
    ASSERT_TRUE(done.ok());
    EXPECT_EQ(done->status, QStringLiteral("executed"));
    EXPECT_TRUE(done->outcome.contains(QLatin1String("\"outcome\": \"done\"")))
        << qPrintable(done->outcome);
    EXPECT_EQ(*QueuedActions(*gateway).runOnce(), 0) << "executed once";
    EXPECT_TRUE(scalar("SELECT detail->>'reason' FROM keel.saga_events WHERE event = "
                       "'operator_retry_now'")
                    .contains(QStringLiteral("guarded action #%1").arg(retry->id)));
    EXPECT_EQ(scalar("SELECT string_agg(action, ',' ORDER BY seq) FROM keel.audit_log "
                     "WHERE object_type = 'operator_action'"),
              QStringLiteral("propose,approve,queue,execute"));
}

TEST_F(SagaOperationsTest, AnActionOnAVersionThatMovedOrWithoutAReasonChangesNothing)
{
    startWorker();
    const QString id = startWithConfirmDown();
    const SagaRecord before = record(id);
    SagaActionOutcome stale = SagaOperations(*m_service)
                                  .apply({SagaAction::RetryNow,
                                          id,
                                          before.version - 1,
                                          QStringLiteral("looked a while ago"),
                                          {}});
    EXPECT_EQ(stale.kind, Kind::Moved);
    EXPECT_EQ(stale.saga.version, before.version);
    SagaActionOutcome reasonless = act(SagaAction::RetryNow, id, QStringLiteral("  "));
    EXPECT_EQ(reasonless.kind, Kind::Invalid);
    EXPECT_EQ(reasonless.error.field, QStringLiteral("reason"));
    EXPECT_EQ(act(SagaAction::Resume, id).kind, Kind::NotAllowed);
    EXPECT_EQ(
        SagaOperations(*m_service)
            .apply({SagaAction::RetryNow, QStringLiteral("saga_nope"), 0, QStringLiteral("x"), {}})
            .kind,
        Kind::NotFound);
    EXPECT_EQ(record(id).version, before.version);
    EXPECT_EQ(m_participant.calls("/confirm", id), 1);
}

TEST_F(SagaOperationsTest, ForcedCompensationUndoesEveryStepIncludingTheOneBeingRetried)
{
    startWorker();
    const QString id = startWithConfirmDown();
    ASSERT_EQ(act(SagaAction::ForceCompensation, id).kind, Kind::Done);
    const QJsonObject saga = waitFor(id, QStringLiteral("compensated"), 5000);
    EXPECT_EQ(m_participant.effects("/unconfirm", id), 1) << "the retried step may have acted";
    EXPECT_EQ(m_participant.effects("/release", id), 1);
    EXPECT_EQ(scalar("SELECT amount_refunded FROM keel.charges"), QStringLiteral("2500"));
    EXPECT_EQ(auditViolations(), QString());
}

TEST_F(SagaOperationsTest, AParkedSagaHoldsItsMoneyInSuspenseAndResumingReleasesIt)
{
    startWorker();
    const QString id = startWithConfirmDown(1);
    ASSERT_EQ(act(SagaAction::Park, id).kind, Kind::Done);
    EXPECT_EQ(record(id).status, SagaStatus::Parked);
    EXPECT_EQ(scalar("SELECT status || ' ' || amount || ' ' || reason FROM keel.suspense_cases"),
              QStringLiteral("open 2500 INC-7: confirm service down"));
    EXPECT_EQ(auditViolations(), QString());

    const SagaActionOutcome resumed = act(SagaAction::Resume, id);
    ASSERT_EQ(resumed.kind, Kind::Done) << qPrintable(resumed.message);
    waitFor(id, QStringLiteral("succeeded"), 5000);
    EXPECT_EQ(scalar("SELECT status || ' ' || (resolution->>'action') FROM keel.suspense_cases"),
              QStringLiteral("resolved resumed"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_transactions WHERE kind = 'suspense_out'"),
              QStringLiteral("1"));
    EXPECT_EQ(auditViolations(), QString()) << "suspense is empty again and the books balance";

    // The whole trail is in the saga's log, with who did what and why.
    auto one = SagaQuery(*m_connection).one(id);
    ASSERT_TRUE(one.ok() && one->has_value());
    QStringList actions;
    for (const SagaEvent &event : (*one)->events)
        if (event.event.startsWith(QLatin1String("operator_")))
            actions << event.event;
    EXPECT_EQ(actions,
              QStringList({QStringLiteral("operator_park"), QStringLiteral("operator_resume")}));
}

TEST_F(SagaOperationsTest, ASkippedStepIsRecordedWithItsReasonAndTheSagaGoesOn)
{
    startWorker();
    const QString id = startWithConfirmDown();
    ASSERT_EQ(act(SagaAction::SkipStep, id, QStringLiteral("confirmed by phone")).kind, Kind::Done);
    const QJsonObject saga = waitFor(id, QStringLiteral("succeeded"), 5000);
    EXPECT_EQ(step(saga, 2).value(QStringLiteral("status")).toString(), QStringLiteral("skipped"));
    EXPECT_EQ(step(saga, 2).value(QStringLiteral("last_error")).toString(),
              QStringLiteral("confirmed by phone"));
    EXPECT_EQ(m_participant.effects("/notify", id), 1);
}

TEST_F(SagaOperationsTest, TheListShowsStuckSagasFirstAndFiltersInSql)
{
    startWorker();
    const QString stuck = startWithConfirmDown();
    QJsonObject other = orderSaga();
    other.insert(QStringLiteral("business_key"), QStringLiteral("order-2002"));
    other.insert(QStringLiteral("steps"),
                 QJsonArray{httpStep(QStringLiteral("reserve"), "/reserve", "/release")});
    const QString done = start(other);
    waitFor(done, QStringLiteral("succeeded"));

    SagaFilter filter;
    filter.attemptLimit = 0; // any attempt at all counts: the waiting saga is stuck
    auto all = SagaQuery(*m_connection).list(filter);
    ASSERT_TRUE(all.ok()) << qPrintable(all.error().message);
    ASSERT_EQ(all->size(), 2);
    EXPECT_EQ(all->at(0).publicId, stuck);
    EXPECT_TRUE(all->at(0).stuck);
    EXPECT_EQ(all->at(0).currentStepName, QStringLiteral("confirm"));
    EXPECT_EQ(all->at(0).mostAttempts, 1);
    EXPECT_FALSE(all->at(1).stuck);

    filter.stuckOnly = true;
    EXPECT_EQ(SagaQuery(*m_connection).list(filter)->size(), 1);
    filter.stuckOnly = false;
    filter.businessKey = QStringLiteral("order-2002");
    ASSERT_EQ(SagaQuery(*m_connection).list(filter)->size(), 1);
    EXPECT_EQ(SagaQuery(*m_connection).list(filter)->at(0).publicId, done);
    filter.businessKey.clear();
    filter.limit = 1;
    filter.after = all->at(0).cursor();
    auto page = SagaQuery(*m_connection).list(filter);
    ASSERT_EQ(page->size(), 1);
    EXPECT_EQ(page->at(0).publicId, done);
    filter.after.reset();
    filter.status = SagaStatus::Parked;
    EXPECT_EQ(SagaQuery(*m_connection).list(filter)->size(), 0);
}

TEST_F(SagaOperationsTest, KeysetPagesWalkTheStuckThenTheRestWithNothingLostOrRepeated)
{
    // Three stuck by age, five fine, all written in one statement: the same
    // created_at to the microsecond within each group.
    ASSERT_TRUE(m_connection
                    ->exec("INSERT INTO keel.sagas (kind, public_id, status, created_at) "
                           "SELECT 'order', 'saga_page' || lpad(g::text, 8, '0'), "
                           "  CASE WHEN g <= 3 THEN 'running' ELSE 'succeeded' END, "
                           "  CASE WHEN g <= 3 THEN now() - interval '1 hour' ELSE now() END "
                           "FROM generate_series(1, 8) g")
                    .ok());
    SagaFilter filter;
    auto whole = SagaQuery(*m_connection).list(filter);
    ASSERT_TRUE(whole.ok()) << qPrintable(whole.error().message);
    ASSERT_EQ(whole->size(), 8);
    QStringList expected;
    for (const SagaSummary &saga : *whole)
        expected << saga.publicId;
    EXPECT_TRUE(whole->at(2).stuck);
    EXPECT_FALSE(whole->at(3).stuck);
    for (const int size : {1, 2, 3}) {
        filter.limit = size;
        filter.after.reset();
        QStringList walked;
        for (int pages = 0; pages < 10; ++pages) {
            auto page = SagaQuery(*m_connection).list(filter);
            ASSERT_TRUE(page.ok()) << qPrintable(page.error().message);
            for (const SagaSummary &saga : *page)
                walked << saga.publicId;
            if (page->size() < size)
                break;
            filter.after = page->constLast().cursor();
        }
        EXPECT_EQ(walked, expected) << "pages of " << size;
    }
}

TEST_F(SagaOperationsTest, StuckCountsFromTheLastProgressNotFromCreation)
{
    // Both began an hour ago; one reached a step a moment ago.
    ASSERT_TRUE(m_connection
                    ->exec("INSERT INTO keel.sagas (kind, public_id, status, created_at, "
                           "  progressed_at) VALUES "
                           "('order', 'saga_moving00000001', 'running', now() - interval '1 hour', "
                           "  now() - interval '1 second'), "
                           "('order', 'saga_stalled0000001', 'running', now() - interval '1 hour', "
                           "  now() - interval '59 minutes')")
                    .ok());
    SagaFilter filter;
    filter.stuckOnly = true;
    auto stuck = SagaQuery(*m_connection).list(filter);
    ASSERT_TRUE(stuck.ok()) << qPrintable(stuck.error().message);
    ASSERT_EQ(stuck->size(), 1);
    EXPECT_EQ(stuck->at(0).publicId, QStringLiteral("saga_stalled0000001"));
}

} // namespace
} // namespace keel::test
