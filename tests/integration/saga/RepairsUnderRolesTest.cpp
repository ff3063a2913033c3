// Every repair as a deployment runs it: the gateway and worker log in as a
// keel_gateway member, people as logins of keel_operator and keel_approver,
// and the books are checked after each. Each test names the defect of issue
// #25 it guards; each failed before migration 0021.

#include "ManualActionsTest.h"

#include "core/db/QtSqlConnections.h"
#include "core/merchant/MerchantStore.h"
#include "core/ops/ActionDesk.h"
#include "core/saga/SagaOperations.h"
#include "core/saga/SagaStore.h"

#include <QJsonArray>
#include <QUuid>

namespace keel::test {
namespace {

using Kind = SagaActionOutcome::Kind;

class RepairsUnderRolesTest : public ManualActionsTest {
protected:
    void SetUp() override
    {
        ManualActionsTest::SetUp();
        if (HasFatalFailure())
            return;
        m_makerLogin = loginAs(QStringLiteral("keel_operator"));
        m_checkerLogin = loginAs(QStringLiteral("keel_approver"));
    }
    // The people's console connections, opened again if a worker started in
    // this thread closed them (its schema check closes the thread's connections).
    QSqlDatabase person(const ConnectionSettings &login, const char *name)
    {
        auto db = QtSqlConnections::connect(login, QString::fromLatin1(name));
        EXPECT_TRUE(db.ok()) << qPrintable(db.error().message);
        return db.ok() ? *db : QSqlDatabase();
    }
    QSqlDatabase maker() { return person(m_makerLogin, "repairs-maker"); }
    QSqlDatabase checker() { return person(m_checkerLogin, "repairs-checker"); }

    // A saga whose charge cannot be refunded, parked by the worker with the
    // 25.00 USD its charge captured in suspense.
    QString parkedWithMoney()
    {
        m_participant.program("/confirm", {409, -1, {}, 0, -1});
        const QString id = start(orderSaga(QStringLiteral("tok_refundFails")));
        waitFor(id, QStringLiteral("parked"));
        return id;
    }
    QString openCase(const QString &sagaId)
    {
        return scalar("SELECT c.id FROM keel.suspense_cases c JOIN keel.sagas s ON s.id = "
                      "c.saga_id WHERE s.public_id = '" +
                      sagaId.toUtf8() + "' AND c.status IN ('open', 'in_review')");
    }
    QString caseVersion(const QString &caseId)
    {
        return scalar("SELECT xmin FROM keel.suspense_cases WHERE id = " + caseId.toUtf8());
    }
    // Proposed by the operator, approved by the approver as shown, executed
    // by the operator, and, for a worker's kind, carried out by the service
    // login. The executed record.
    ActionRecord guarded(const QString &kind, const QString &type, const ActionTarget &target,
                         const QJsonObject &payload = {})
    {
        ActionDesk maker(this->maker());
        auto proposal = maker.propose({kind,
                                       type,
                                       target.id,
                                       {target},
                                       QStringLiteral("INC-25: repair as production runs"),
                                       ActionDesk::newIdempotencyKey(),
                                       payload});
        EXPECT_TRUE(proposal.ok()) << qPrintable(proposal.error().message);
        if (!proposal)
            return {};
        EXPECT_TRUE(ActionDesk(checker()).approve(proposal->id, proposal->contentHash).ok());
        auto executed = maker.execute(proposal->id);
        EXPECT_TRUE(executed.ok()) << qPrintable(executed.error().message);
        // A saga kind is queued: the running worker hears keel_actions and
        // carries it out at once, as its keel_gateway login.
        EXPECT_TRUE(waitUntil(
            [&] { return maker.find(proposal->id)->status == QLatin1String("executed"); }, 5000));
        return *maker.find(proposal->id);
    }
    ActionRecord onSaga(const QString &kind, const QString &id)
    {
        return guarded(kind, QStringLiteral("saga"), {id, QString::number(record(id).version)});
    }
    static QString outcomeOf(const ActionRecord &action)
    {
        return QJsonDocument::fromJson(action.outcome.toUtf8())
            .object()
            .value(QStringLiteral("targets"))
            .toArray()
            .at(0)
            .toObject()
            .value(QStringLiteral("outcome"))
            .toString();
    }
    QString suspenseHeld()
    {
        return scalar("SELECT coalesce(-sum(e.amount), 0) FROM keel.ledger_entries e JOIN "
                      "keel.ledger_accounts a ON a.id = e.account_id WHERE a.kind = 'suspense'");
    }
    QString payable()
    {
        return scalar("SELECT coalesce(-sum(e.amount), 0) FROM keel.ledger_entries e JOIN "
                      "keel.ledger_accounts a ON a.id = e.account_id WHERE a.code LIKE "
                      "'merchant_payable:%'");
    }

    ConnectionSettings m_makerLogin;
    ConnectionSettings m_checkerLogin;
};

// Defect 1: a resume was refused to the worker's login (no UPDATE on
// suspense_cases), so every approved resume ended "failed".
TEST_F(RepairsUnderRolesTest, AnApprovedResumeIsCarriedOutByTheServiceLoginAndReleasesTheMoney)
{
    startWorker();
    const QString id = startWithConfirmDown(1);

    EXPECT_EQ(outcomeOf(onSaga(QStringLiteral("saga.park"), id)), QStringLiteral("done"));
    EXPECT_EQ(record(id).status, SagaStatus::Parked);
    EXPECT_EQ(suspenseHeld(), QStringLiteral("2500"));

    const ActionRecord resumed = onSaga(QStringLiteral("saga.resume"), id);
    EXPECT_EQ(outcomeOf(resumed), QStringLiteral("done")) << qPrintable(resumed.outcome);
    waitFor(id, QStringLiteral("succeeded"), 10000);
    EXPECT_EQ(suspenseHeld(), QStringLiteral("0"));
    EXPECT_EQ(payable(), QStringLiteral("2500")) << "the merchant holds the charge again";
    EXPECT_EQ(scalar("SELECT resolution->>'action' || ' for ' || (resolution->>'acted_for' <> '') "
                     "FROM keel.suspense_cases"),
              QStringLiteral("resumed for true"));
    expectLedgerBalances();
}

// Defect 2: one case per saga ever, so a resumed saga that failed again
// could not park and cycled in `compensating`.
TEST_F(RepairsUnderRolesTest, ASagaResumedThatFailsAgainParksAgainWithACaseOfItsOwn)
{
    startWorker();
    const QString id = parkedWithMoney();
    EXPECT_EQ(outcomeOf(onSaga(QStringLiteral("saga.resume"), id)), QStringLiteral("done"));
    ASSERT_TRUE(waitUntil(
        [&] {
            return scalar("SELECT count(*) FROM keel.suspense_cases") == QLatin1String("2") &&
                   record(id).status == SagaStatus::Parked;
        },
        20000))
        << "saga is " << qPrintable(record(id).status);
    EXPECT_EQ(scalar("SELECT string_agg(status || ':' || amount, ',' ORDER BY id) FROM "
                     "keel.suspense_cases"),
              QStringLiteral("resolved:2500,open:2500"));
    EXPECT_EQ(suspenseHeld(), QStringLiteral("2500"));
    EXPECT_EQ(payable(), QStringLiteral("0"));
    expectLedgerBalances();
}

// Defect 3: a written-off case left its saga parked and resumable; the resume
// then refunded from the merchant what suspense had already written off.
TEST_F(RepairsUnderRolesTest, AWriteOffClosesTheSagaAndNoResumeCanDebitTheMerchantAgain)
{
    startWorker();
    const QString id = parkedWithMoney();
    const QString caseId = openCase(id);
    const ActionRecord writeOff =
        guarded(QStringLiteral("case.write_off"), QStringLiteral("suspense_case"),
                {caseId, caseVersion(caseId)});
    EXPECT_EQ(outcomeOf(writeOff), QStringLiteral("done")) << qPrintable(writeOff.outcome);
    EXPECT_EQ(record(id).status, SagaStatus::Resolved);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.saga_events e JOIN keel.sagas s ON s.id = "
                     "e.saga_id WHERE e.event = 'case_resolved'"),
              QStringLiteral("1"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.outbox WHERE event_type = 'saga.resolved'"),
              QStringLiteral("1"));
    const QString payableAfter = payable();

    EXPECT_EQ(outcomeOf(onSaga(QStringLiteral("saga.resume"), id)), QStringLiteral("not_allowed"));
    // Not even the service login's own write takes it out of `resolved`, and
    // no parked saga leaves `parked` without its case released.
    EXPECT_FALSE(m_service
                     ->exec("UPDATE keel.sagas SET status = 'compensating' WHERE public_id = '" +
                            id.toUtf8() + "'")
                     .ok());
    const QString other = parkedWithMoney();
    EXPECT_FALSE(m_service
                     ->exec("UPDATE keel.sagas SET status = 'compensating' WHERE public_id = '" +
                            other.toUtf8() + "'")
                     .ok());
    EXPECT_EQ(m_service->lastSqlState(), QLatin1String(ErrorCode::CaseClosed));
    EXPECT_EQ(record(id).status, SagaStatus::Resolved);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.refunds WHERE status = 'succeeded'"),
              QStringLiteral("0"));
    EXPECT_EQ(payable(), payableAfter);
    expectLedgerBalances();
}

// Defect 4: a park while a refund was in flight put the whole capture into
// suspense, and the refund then took the same money from the merchant.
TEST_F(RepairsUnderRolesTest, AParkWaitsForARefundTheChannelHasNotAnswered)
{
    startWorker();
    const QString id = startWithConfirmDown();
    // A partial refund of the saga's charge whose answer has not come back.
    ASSERT_EQ(scalar("INSERT INTO keel.refunds (public_id, charge_id, out_refund_no, amount, "
                     "currency, request_hash) SELECT 're_inflight0001', charge_id, 'r-1', 1000, "
                     "'USD', sha256('r') FROM keel.sagas WHERE public_id = '" +
                     id.toUtf8() + "' RETURNING status"),
              QStringLiteral("pending"));

    const SagaActionOutcome refused =
        SagaOperations(*m_service)
            .apply(
                {SagaAction::Park, id, record(id).version, QStringLiteral("confirm is down"), {}});
    EXPECT_EQ(refused.kind, Kind::Busy) << qPrintable(refused.message);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.suspense_cases"), QStringLiteral("0"));
    EXPECT_FALSE(m_service
                     ->exec("INSERT INTO keel.suspense_cases (saga_id, charge_id, currency, "
                            "amount, reason) SELECT id, charge_id, 'USD', 0, 'x' FROM keel.sagas")
                     .ok());
    EXPECT_EQ(m_service->lastSqlState(), QLatin1String(ErrorCode::ChannelInFlight));

    // The channel answers: the refund took 10.00; the park holds the rest.
    ASSERT_EQ(scalar("WITH r AS (UPDATE keel.refunds SET status = 'succeeded' RETURNING amount) "
                     "UPDATE keel.charges SET amount_refunded = (SELECT amount FROM r) "
                     "RETURNING amount_refunded"),
              QStringLiteral("1000"));
    const SagaActionOutcome parked =
        SagaOperations(*m_service)
            .apply(
                {SagaAction::Park, id, record(id).version, QStringLiteral("confirm is down"), {}});
    EXPECT_EQ(parked.kind, Kind::Done) << qPrintable(parked.message);
    EXPECT_EQ(scalar("SELECT amount FROM keel.suspense_cases"), QStringLiteral("1500"));
}

// Found by the chaos suite's operator desk: a charge step whose answer was
// lost had made its charge, but the saga did not name it yet; a person parked
// the saga, the case held nothing, and when the reconciler captured the charge
// the merchant kept the money of an order that never completed.
TEST_F(RepairsUnderRolesTest, AParkHoldsTheMoneyOfAChargeItsSagaDoesNotNameYet)
{
    startWorker();
    const QString id = startWithConfirmDown();
    // The state the lost answer leaves: the charge captured, the saga not
    // pointing at it.
    const QString charge = scalar(
        "UPDATE keel.sagas SET charge_id = NULL WHERE public_id = '" + id.toUtf8() +
        "' RETURNING (SELECT charge_id FROM keel.sagas WHERE public_id = '" + id.toUtf8() + "')");
    ASSERT_FALSE(charge.isEmpty());
    EXPECT_FALSE(m_service
                     ->exec("INSERT INTO keel.suspense_cases (saga_id, currency, amount, reason) "
                            "SELECT id, 'USD', 0, 'x' FROM keel.sagas")
                     .ok());
    EXPECT_EQ(m_service->lastSqlState(), QLatin1String(ErrorCode::ChannelInFlight));

    const SagaActionOutcome parked =
        SagaOperations(*m_service)
            .apply(
                {SagaAction::Park, id, record(id).version, QStringLiteral("confirm is down"), {}});
    EXPECT_EQ(parked.kind, Kind::Done) << qPrintable(parked.message);
    EXPECT_EQ(scalar("SELECT amount || ' ' || charge_id FROM keel.suspense_cases"),
              QStringLiteral("2500 ") + charge);
    EXPECT_EQ(scalar("SELECT charge_id FROM keel.sagas WHERE public_id = '" + id.toUtf8() + "'"),
              charge);
    EXPECT_EQ(suspenseHeld(), QStringLiteral("2500"));
    EXPECT_EQ(payable(), QStringLiteral("0"));
}

// A lost dispute taken back (recon_break.take_back, BreakResolutionTest) has
// given the customer that money from clearing: a park afterwards holds only
// what clearing still holds for the charge, not the whole capture again.
TEST_F(RepairsUnderRolesTest, AParkHoldsNoneOfWhatTheChannelTookBack)
{
    startWorker();
    const QString id = startWithConfirmDown();
    const QByteArray charge =
        scalar("SELECT charge_id FROM keel.sagas WHERE public_id = '" + id.toUtf8() + "'").toUtf8();
    ASSERT_FALSE(charge.isEmpty());
    // The posting an approved take-back of 10.00 against the merchant makes;
    // its trigger, which wants the break a second person resolved, is set
    // aside to put the charge in that state without a statement and a run.
    (void)scalar("DO $$ DECLARE t bigint; BEGIN SET LOCAL session_replication_role = replica; "
                 "INSERT INTO keel.ledger_transactions (kind, charge_id, description) VALUES "
                 "('channel_takeback', " +
                 charge +
                 ", 'a lost dispute') RETURNING id INTO t; "
                 "INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount) "
                 "SELECT t, a.id, a.currency, "
                 "CASE WHEN a.code LIKE 'merchant_payable:%' THEN 1000 ELSE -1000 END "
                 "FROM keel.ledger_accounts a WHERE a.code = 'channel_clearing:USD' OR a.code "
                 "LIKE 'merchant_payable:%:USD'; END $$");
    ASSERT_EQ(scalar("SELECT keel.charge_taken_back(" + charge + ")"), QStringLiteral("1000"));
    ASSERT_EQ(payable(), QStringLiteral("1500"));

    const SagaActionOutcome parked =
        SagaOperations(*m_service)
            .apply({SagaAction::Park, id, record(id).version, QStringLiteral("disputed"), {}});
    EXPECT_EQ(parked.kind, Kind::Done) << qPrintable(parked.message);
    EXPECT_EQ(scalar("SELECT amount FROM keel.suspense_cases"), QStringLiteral("1500"));
    EXPECT_EQ(suspenseHeld(), QStringLiteral("1500"));
    EXPECT_EQ(payable(), QStringLiteral("0")) << "the merchant gave up only what they still held";
    // Not the whole audit: it rightly names the posting written around its
    // trigger above (BreakResolutionTest.TheAuditFindsATakeBackNoApprovedActionPosted).
    EXPECT_EQ(scalar("SELECT count(*) FROM (SELECT 1 FROM keel.ledger_entries GROUP BY "
                     "transaction_id HAVING sum(amount) <> 0) unbalanced"),
              QStringLiteral("0"));
}

// Found while fixing defect 4: the other order. A refund asked for after the
// park would take from the merchant what suspense already holds.
TEST_F(RepairsUnderRolesTest, AChargeWhoseMoneyIsInSuspenseIsNotRefundedUntilItsCaseCloses)
{
    startWorker();
    const QString id = parkedWithMoney();
    const QString charge = scalar("SELECT c.public_id FROM keel.charges c JOIN keel.sagas s ON "
                                  "s.charge_id = c.id WHERE s.public_id = '" +
                                  id.toUtf8() + "'");
    const HttpReply refused =
        post("/v1/refunds", "charge=" + charge.toUtf8() + "&amount=100", "refund-held-1");
    EXPECT_EQ(refused.status, 400) << refused.body.constData();
    EXPECT_TRUE(refused.body.contains("charge_held_in_suspense")) << refused.body.constData();
    EXPECT_FALSE(m_service
                     ->exec("INSERT INTO keel.refunds (public_id, charge_id, out_refund_no, "
                            "amount, currency, request_hash) SELECT 're_direct0000001', id, "
                            "'direct', 100, currency, sha256('d') FROM keel.charges WHERE "
                            "public_id = '" +
                            charge.toUtf8() + "'")
                     .ok());
    EXPECT_EQ(m_service->lastSqlState(), QLatin1String("KL423"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.refunds WHERE amount = 100"), QStringLiteral("0"));
    expectLedgerBalances();
}

// Defect 5: case.adjust posted anywhere; now only within its case, and no
// posting takes more out of suspense than a case put in.
TEST_F(RepairsUnderRolesTest, AnAdjustmentPostsOnlyWithinItsCase)
{
    startWorker();
    const QString id = parkedWithMoney();
    const QString caseId = openCase(id);
    ASSERT_EQ(scalar("WITH m AS (INSERT INTO keel.merchants (name, api_key_hash) VALUES "
                     "('Other Shop', sha256('other')) RETURNING id) "
                     "INSERT INTO keel.ledger_accounts (code, kind, currency, merchant_id) "
                     "SELECT 'merchant_payable:' || id || ':USD', 'liability', 'USD', id FROM m "
                     "RETURNING kind"),
              QStringLiteral("liability"));
    const QString otherPayable = scalar("SELECT code FROM keel.ledger_accounts a JOIN "
                                        "keel.merchants m ON m.id = a.merchant_id WHERE m.name = "
                                        "'Other Shop'");
    auto postingTo = [](const QString &account) {
        return QJsonObject{{QStringLiteral("postings"),
                            QJsonArray{QJsonObject{{QStringLiteral("account"), account},
                                                   {QStringLiteral("amount"), -2500}}}}};
    };
    auto elsewhere = ActionDesk(maker()).propose({QStringLiteral("case.adjust"),
                                                  QStringLiteral("suspense_case"),
                                                  caseId,
                                                  {{caseId, caseVersion(caseId)}},
                                                  QStringLiteral("pay it to someone else"),
                                                  ActionDesk::newIdempotencyKey(),
                                                  postingTo(otherPayable)});
    ASSERT_FALSE(elsewhere.ok());
    EXPECT_EQ(elsewhere.error().code, QLatin1String(ActionErrorCode::Invalid));
    EXPECT_TRUE(elsewhere.error().message.contains(QLatin1String("outside case")))
        << qPrintable(elsewhere.error().message);

    // Taking money out of suspense for no case is refused at commit.
    EXPECT_FALSE(m_service
                     ->exec("BEGIN; WITH t AS (INSERT INTO keel.ledger_transactions (kind) VALUES "
                            "('adjustment') RETURNING id) INSERT INTO keel.ledger_entries "
                            "(transaction_id, account_id, currency, amount) SELECT t.id, a.id, "
                            "'USD', CASE a.kind WHEN 'suspense' THEN 2500 ELSE -2500 END FROM t, "
                            "keel.ledger_accounts a WHERE a.code IN ('suspense:USD', "
                            "'channel_fees:USD'); COMMIT")
                     .ok());
    (void)m_service->exec("ROLLBACK");

    const ActionRecord fee =
        guarded(QStringLiteral("case.adjust"), QStringLiteral("suspense_case"),
                {caseId, caseVersion(caseId)}, postingTo(QStringLiteral("channel_fees:USD")));
    EXPECT_EQ(outcomeOf(fee), QStringLiteral("done")) << qPrintable(fee.outcome);
    EXPECT_EQ(suspenseHeld(), QStringLiteral("0"));
    EXPECT_EQ(record(id).status, SagaStatus::Resolved);
    expectLedgerBalances();
}

// An adjustment that balances could still move money the case never held:
// 1,000 taken off the merchant and put on clearing beside the case's 25.
// Since migration 0029 each posting only receives part of what the case holds.
TEST_F(RepairsUnderRolesTest, AnAdjustmentHandsOutOnlyWhatItsCaseHolds)
{
    startWorker();
    const QString id = parkedWithMoney();
    const QString caseId = openCase(id);
    const QString merchantPayable =
        scalar("SELECT code FROM keel.ledger_accounts WHERE code LIKE 'merchant_payable:%:USD'");
    const auto posting = [](const QString &account, qint64 amount) {
        return QJsonObject{{QStringLiteral("account"), account},
                           {QStringLiteral("amount"), amount}};
    };
    const QJsonObject transfer{{QStringLiteral("postings"),
                                QJsonArray{posting(QStringLiteral("channel_clearing:USD"), -102500),
                                           posting(merchantPayable, 100000)}}};
    const QString actionsBefore = scalar("SELECT count(*) FROM keel.operator_actions");
    auto refused = ActionDesk(maker()).propose({QStringLiteral("case.adjust"),
                                                QStringLiteral("suspense_case"),
                                                caseId,
                                                {{caseId, caseVersion(caseId)}},
                                                QStringLiteral("balances, but moves 1,000"),
                                                ActionDesk::newIdempotencyKey(),
                                                transfer});
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, QLatin1String(ActionErrorCode::Invalid));
    EXPECT_TRUE(refused.error().message.contains(QLatin1String("only hands out")))
        << qPrintable(refused.error().message);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.operator_actions"), actionsBefore);

    // Split between the merchant and the channel, the case's own 25 go out.
    const ActionRecord split =
        guarded(QStringLiteral("case.adjust"), QStringLiteral("suspense_case"),
                {caseId, caseVersion(caseId)},
                {{QStringLiteral("postings"),
                  QJsonArray{posting(QStringLiteral("channel_clearing:USD"), -1500),
                             posting(merchantPayable, -1000)}}});
    EXPECT_EQ(outcomeOf(split), QStringLiteral("done")) << qPrintable(split.outcome);
    EXPECT_EQ(suspenseHeld(), QStringLiteral("0"));
    expectLedgerBalances();
}

// Defect 6: what the approver approves is what they were shown.
TEST_F(RepairsUnderRolesTest, AnApprovalNamesTheContentItsApproverSaw)
{
    startWorker();
    const QString id = parkedWithMoney();
    const QString caseId = openCase(id);
    auto writeOff = ActionDesk(maker()).propose({QStringLiteral("case.write_off"),
                                                 QStringLiteral("suspense_case"),
                                                 caseId,
                                                 {{caseId, caseVersion(caseId)}},
                                                 QStringLiteral("customer unreachable"),
                                                 ActionDesk::newIdempotencyKey(),
                                                 {}});
    ASSERT_TRUE(writeOff.ok()) << qPrintable(writeOff.error().message);
    EXPECT_EQ(writeOff->contentHash.size(), 64);
    const Status blind = ActionDesk(checker()).approve(writeOff->id, QString(64, u'0'));
    ASSERT_FALSE(blind.ok());
    EXPECT_EQ(blind.error().code, QLatin1String(ActionErrorCode::Invalid));
    EXPECT_EQ(ActionDesk(maker()).find(writeOff->id)->status, QStringLiteral("proposed"));
    EXPECT_TRUE(ActionDesk(checker()).approve(writeOff->id, writeOff->contentHash).ok());
}

// Defect 8: a service login finishes only the queued action it claimed, with
// one known outcome per frozen target.
TEST_F(RepairsUnderRolesTest, OnlyTheClaimHolderFinishesAQueuedAction)
{
    startWorker();
    const QString id = parkedWithMoney();
    m_worker->stop(); // from here this test is the only worker
    m_worker.reset();
    const QString version = QString::number(record(id).version);
    ActionDesk maker(this->maker());
    auto retry = maker.propose({QStringLiteral("saga.resume"),
                                QStringLiteral("saga"),
                                id,
                                {{id, version}},
                                QStringLiteral("refunds work again"),
                                ActionDesk::newIdempotencyKey(),
                                {}});
    ASSERT_TRUE(retry.ok());
    ASSERT_TRUE(ActionDesk(checker()).approve(retry->id, retry->contentHash).ok());
    ASSERT_TRUE(maker.execute(retry->id)->queued);
    auto claimed = m_service->scalar("SELECT claim_token FROM keel.claim_queued_action()");
    ASSERT_TRUE(claimed.ok() && !claimed->isEmpty());

    auto other = LibpqConnection::open(m_serviceLogin);
    ASSERT_TRUE(other.ok());
    const QByteArray results =
        "'[{\"id\": \"" + id.toUtf8() + "\", \"outcome\": \"done\"}]'::jsonb";
    EXPECT_FALSE(other
                     ->scalar("SELECT keel.finish_queued_action(" + QByteArray::number(retry->id) +
                              ", '" +
                              QUuid::createUuid().toString(QUuid::WithoutBraces).toLatin1() +
                              "', " + results + ")")
                     .ok());
    EXPECT_EQ(other->lastSqlState(), QLatin1String(ErrorCode::InsufficientPrivilege));
    EXPECT_FALSE(other
                     ->scalar("SELECT keel.finish_queued_action(" + QByteArray::number(retry->id) +
                              ", '" + claimed->toLatin1() + "', '[]'::jsonb)")
                     .ok());
    EXPECT_EQ(maker.find(retry->id)->status, QStringLiteral("queued"));
    EXPECT_TRUE(other
                    ->scalar("SELECT keel.finish_queued_action(" + QByteArray::number(retry->id) +
                             ", '" + claimed->toLatin1() + "', " + results + ")")
                    .ok());
    EXPECT_EQ(maker.find(retry->id)->status, QStringLiteral("executed"));
}

// Defect 8: the rules and the merchants are in the audit trail.
TEST_F(RepairsUnderRolesTest, RuleAndMerchantChangesAreAudited)
{
    auto owner = LibpqConnection::open(settings());
    ASSERT_TRUE(owner.ok());
    ASSERT_TRUE(owner->exec("UPDATE keel.ops_policy SET proposal_ttl = interval '2 hours'").ok());
    auto issued = MerchantStore(*owner).create(QStringLiteral("Audited Shop"), {});
    ASSERT_TRUE(issued.ok());
    ASSERT_TRUE(MerchantStore(*owner).rotateSecret(issued->merchant.id, 0).ok());
    const QString trail = scalar("SELECT string_agg(action, ',' ORDER BY seq) FROM keel.audit_log "
                                 "WHERE action LIKE 'rules.%' OR action LIKE 'merchant.%'");
    EXPECT_TRUE(trail.contains(QLatin1String("rules.update"))) << qPrintable(trail);
    EXPECT_TRUE(trail.contains(QLatin1String("merchant.create"))) << qPrintable(trail);
    EXPECT_TRUE(trail.contains(QLatin1String("merchant.secret_change"))) << qPrintable(trail);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.audit_log WHERE detail::text LIKE '%whsec_%'"),
              QStringLiteral("0"))
        << "no secret in the trail";
}

} // namespace
} // namespace keel::test
