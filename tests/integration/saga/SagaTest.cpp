// The saga engine end to end: sagas posted to a real gateway, run by real
// workers (in-process, or `keel worker` processes that are killed), calling
// real local HTTP participants and the simulated card channel, on a real
// PostgreSQL.

#include "PlainHttpRefused.h"
#include "SagaTestFixture.h"

namespace keel::test {
namespace {

TEST_F(SagaTest, TheOrderSagaRunsEveryStepOnceAndCapturesTheCharge)
{
    startWorker();
    const QString id = start(orderSaga());
    const QJsonObject saga = waitFor(id, QStringLiteral("succeeded"));
    for (const QByteArray path : {"/reserve", "/confirm", "/notify"})
        EXPECT_EQ(m_participant.calls(path, id), 1) << path.constData();
    EXPECT_EQ(m_participant.calls("/release"), 0);
    const QString charge = saga.value(QStringLiteral("charge")).toString();
    ASSERT_TRUE(charge.startsWith(QLatin1String("ch_")));
    EXPECT_EQ(scalar("SELECT state FROM keel.payment_state p JOIN keel.charges c ON c.id = "
                     "p.charge_id WHERE c.public_id = '" +
                     charge.toUtf8() + "'"),
              QStringLiteral("Captured"));
    // DTM's query parameters, so a DTM participant works unchanged.
    const QByteArray query = m_participant.lastQuery("/confirm");
    EXPECT_TRUE(query.contains(QByteArray(QByteArray("gid=") + id.toUtf8()))) << query.constData();
    EXPECT_TRUE(query.contains("trans_type=saga")) << query.constData();
    EXPECT_TRUE(query.contains("branch_id=03")) << query.constData();
    EXPECT_TRUE(query.contains("op=action")) << query.constData();
    // Every step with its attempts and timings.
    const QJsonArray log = step(saga, 2).value(QStringLiteral("attempt_log")).toArray();
    ASSERT_EQ(log.size(), 1);
    EXPECT_EQ(log.at(0).toObject().value(QStringLiteral("verdict")).toString(),
              QStringLiteral("succeeded"));
    EXPECT_EQ(log.at(0).toObject().value(QStringLiteral("status")).toInt(), 200);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.outbox WHERE aggregate_type = 'saga' AND "
                     "event_type = 'saga.succeeded'"),
              QStringLiteral("1"));
    expectLedgerBalances();
}

TEST_F(SagaTest, AFailedConfirmationRefundsTheChargeAndReleasesTheInventoryInReverse)
{
    m_participant.program("/confirm", {409, -1, {}, 0, -1});
    startWorker();
    const QString id = start(orderSaga());
    const QJsonObject saga = waitFor(id, QStringLiteral("compensated"));
    EXPECT_EQ(m_participant.calls("/confirm", id), 1) << "a business failure is not retried";
    EXPECT_EQ(m_participant.calls("/unconfirm", id), 0)
        << "the participant said it did nothing: nothing to undo";
    EXPECT_EQ(m_participant.effects("/release", id), 1);
    EXPECT_EQ(m_participant.calls("/notify", id), 0);
    EXPECT_EQ(step(saga, 1).value(QStringLiteral("status")).toString(),
              QStringLiteral("compensated"));
    EXPECT_EQ(step(saga, 0).value(QStringLiteral("status")).toString(),
              QStringLiteral("compensated"));
    // The refund went through the channel, and happened after the charge's
    // compensation began and before the inventory's.
    const QString charge = saga.value(QStringLiteral("charge")).toString();
    EXPECT_EQ(scalar("SELECT amount_refunded FROM keel.charges WHERE public_id = '" +
                     charge.toUtf8() + "'"),
              QStringLiteral("2500"));
    EXPECT_LT(step(saga, 1).value(QStringLiteral("compensated")).toInteger(),
              step(saga, 0).value(QStringLiteral("compensated")).toInteger() + 1);
    expectLedgerBalances();
}

TEST_F(SagaTest, ARefundThatFailsThreeRoundsParksTheSagaWithOneSuspenseCaseAndPosting)
{
    m_participant.program("/confirm", {409, -1, {}, 0, -1});
    startWorker();
    const QString id = start(orderSaga(QStringLiteral("tok_refundFails")));
    const QJsonObject saga = waitFor(id, QStringLiteral("parked"));
    EXPECT_EQ(saga.value(QStringLiteral("compensation_rounds")).toInt(), 3);
    EXPECT_EQ(step(saga, 1).value(QStringLiteral("compensation_attempts")).toInt(), 3);
    EXPECT_EQ(m_participant.calls("/release", id), 0) << "parked before the inventory";
    EXPECT_EQ(scalar("SELECT count(*) || ' ' || min(amount) || ' ' || min(currency) FROM "
                     "keel.suspense_cases c JOIN keel.sagas s ON s.id = c.saga_id WHERE "
                     "s.public_id = '" +
                     id.toUtf8() + "'"),
              QStringLiteral("1 2500 USD"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_transactions WHERE kind = 'suspense_in'"),
              QStringLiteral("1"));
    EXPECT_EQ(scalar("SELECT -sum(e.amount) FROM keel.ledger_entries e JOIN keel.ledger_accounts "
                     "a ON a.id = e.account_id WHERE a.kind = 'suspense' AND a.currency = 'USD'"),
              QStringLiteral("2500"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.refunds WHERE status = 'failed'"),
              QStringLiteral("3"));
    expectLedgerBalances();

    // A parked saga never retries by itself again: the confirmation now
    // works and a later saga runs to the end through the same worker, yet the
    // parked one has not been tried once more.
    const int attempts = step(fetch(id), 1).value(QStringLiteral("compensation_attempts")).toInt();
    m_participant.program("/confirm", {});
    waitFor(start(orderSaga()), QStringLiteral("succeeded"));
    const QJsonObject after = fetch(id);
    EXPECT_EQ(after.value(QStringLiteral("status")).toString(), QStringLiteral("parked"));
    EXPECT_EQ(step(after, 1).value(QStringLiteral("compensation_attempts")).toInt(), attempts);
}

TEST_F(SagaTest, AWorkerNeedsNoMoreThanTheGatewayRoleEvenToParkASaga)
{
    m_participant.program("/confirm", {409, -1, {}, 0, -1});
    m_workerOptions.settings = loginAs(QStringLiteral("keel_gateway"));
    startWorker();
    const QString id = start(orderSaga(QStringLiteral("tok_refundFails")));
    waitFor(id, QStringLiteral("parked"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.suspense_cases"), QStringLiteral("1"));
    expectLedgerBalances();
}

TEST_F(SagaTest, MetricsCountSagasAndStepsAndTheStuckGauge)
{
    m_participant.program("/confirm-down", {503, -1, {}, 0, -1});
    startWorker();
    const QString done = start(orderSaga());
    QJsonObject waiting = orderSaga();
    waiting.insert(QStringLiteral("stuck_after_seconds"), 1);
    QJsonArray steps = waiting.value(QStringLiteral("steps")).toArray();
    QJsonObject confirm = steps.at(2).toObject();
    confirm.insert(QStringLiteral("action_url"), m_participant.url("/confirm-down"));
    confirm.insert(QStringLiteral("retry"), QJsonObject{{QStringLiteral("attempts"), 50},
                                                        {QStringLiteral("backoff_ms"), 60000}});
    steps.replace(2, confirm);
    waiting.insert(QStringLiteral("steps"), steps);
    const QString stuck = start(waiting);
    waitFor(done, QStringLiteral("succeeded"));
    // The participant counts a call as it arrives; the worker records the
    // 503 a moment later.
    ASSERT_TRUE(waitUntil([&] {
        return get("/metrics")
            .body.contains(
                "keel_saga_step_attempts_total{definition=\"order\",step=\"confirm\",op=\"action\","
                "verdict=\"retryable\"} 1");
    }));
    EXPECT_EQ(m_participant.calls("/confirm-down", stuck), 1);
    // Two seconds pass for the waiting saga (a clock step on its row): it is
    // now past its stuck_after_seconds of 1.
    ASSERT_EQ(scalar("UPDATE keel.sagas SET created_at = created_at - interval '2 seconds', "
                     "progressed_at = progressed_at - interval '2 seconds' WHERE public_id = '" +
                     stuck.toUtf8() + "' RETURNING public_id"),
              stuck);
    m_worker->maintain();
    const QByteArray metrics = get("/metrics").body;
    EXPECT_TRUE(metrics.contains(
        "keel_saga_transitions_total{definition=\"order\",status=\"succeeded\"} 1"))
        << metrics.constData();
    EXPECT_TRUE(metrics.contains("keel_saga_transitions_total{definition=\"order\",status="
                                 "\"started\"} 2"));
    EXPECT_TRUE(metrics.contains("keel_saga_step_attempts_total{definition=\"order\",step="
                                 "\"confirm\",op=\"action\",verdict=\"retryable\"} 1"));
    EXPECT_TRUE(metrics.contains("keel_sagas_stuck 1"));
    EXPECT_EQ(scalar("SELECT sum(count) FROM keel.metrics_minute WHERE metric = "
                     "'saga.succeeded'"),
              QStringLiteral("1"));
}

TEST_F(SagaTest, TheAuditNoticesASuspensePostingWithoutItsCase)
{
    m_participant.program("/confirm", {409, -1, {}, 0, -1});
    startWorker();
    const QString id = start(orderSaga(QStringLiteral("tok_refundFails")));
    waitFor(id, QStringLiteral("parked"));
    expectLedgerBalances();
    auto session = LibpqConnection::open(settings());
    ASSERT_TRUE(session.ok());
    ASSERT_TRUE(session->exec("UPDATE keel.suspense_cases SET amount = 2400").ok());
    auto report = Ledger::audit(*session);
    ASSERT_TRUE(report.ok());
    // Seen by the posting's own rule, by the currency's suspense account, by
    // the charge's and by the case's.
    ASSERT_EQ(report->violations.size(), 4) << qPrintable(report->violations.join(u'\n'));
    EXPECT_TRUE(report->violations.at(0).contains(QLatin1String("suspense posting")))
        << qPrintable(report->violations.at(0));
    EXPECT_TRUE(report->violations.at(1).contains(QLatin1String("open cases add up to 2400")))
        << qPrintable(report->violations.at(1));
    EXPECT_TRUE(report->violations.at(2).contains(
        QLatin1String("has 2500 in suspense but its open cases hold 2400")))
        << qPrintable(report->violations.at(2));
    EXPECT_TRUE(report->violations.at(3).contains(
        QLatin1String("is open for 2400 but its postings hold 2500")))
        << qPrintable(report->violations.at(3));
}

TEST_F(SagaTest, AParticipantThatFailsTransientlyIsRetriedUntilItAnswers)
{
    m_participant.program("/reserve", {503, 2, {}, 0, -1});
    startWorker();
    QJsonObject saga = orderSaga();
    saga.insert(QStringLiteral("steps"),
                QJsonArray{httpStep(QStringLiteral("reserve"), "/reserve", "/release", 5)});
    const QString id = start(saga);
    const QJsonObject done = waitFor(id, QStringLiteral("succeeded"));
    EXPECT_EQ(step(done, 0).value(QStringLiteral("attempts")).toInt(), 3);
    const QJsonArray log = step(done, 0).value(QStringLiteral("attempt_log")).toArray();
    ASSERT_EQ(log.size(), 3);
    EXPECT_EQ(log.at(0).toObject().value(QStringLiteral("verdict")).toString(),
              QStringLiteral("retryable"));
    EXPECT_EQ(log.at(0).toObject().value(QStringLiteral("status")).toInt(), 503);
}

TEST_F(SagaTest, OngoingAnswersAreAskedAgainWithoutUsingUpTheRetries)
{
    m_participant.program("/reserve", {425, 4, {}, 0, -1});
    startWorker();
    QJsonObject saga = orderSaga();
    saga.insert(QStringLiteral("steps"),
                QJsonArray{httpStep(QStringLiteral("reserve"), "/reserve", "/release", 2)});
    const QString id = start(saga);
    const QJsonObject done = waitFor(id, QStringLiteral("succeeded"));
    EXPECT_EQ(step(done, 0).value(QStringLiteral("attempts")).toInt(), 5);
}

TEST_F(SagaTest, ADtmFailureBodyIsABusinessFailureWhateverTheStatus)
{
    m_participant.program("/reserve", {200, -1, "{\"dtm_result\":\"FAILURE\"}", 0, -1});
    startWorker();
    QJsonObject saga = orderSaga();
    saga.insert(QStringLiteral("steps"),
                QJsonArray{httpStep(QStringLiteral("reserve"), "/reserve", "/release", 5)});
    const QString id = start(saga);
    waitFor(id, QStringLiteral("compensated"));
    EXPECT_EQ(m_participant.calls("/reserve", id), 1);
    EXPECT_EQ(m_participant.calls("/release", id), 0);
}

TEST_F(SagaTest, TimeoutsExhaustTheRetriesAndTheStepThatMayHaveActedIsCompensated)
{
    // The participant applies the reservation, then answers too late, twice.
    m_participant.program("/reserve", {0, 0, {}, 800, -1});
    startWorker();
    const QString id = start(quickReserveSaga(2));
    const QJsonObject done = waitFor(id, QStringLiteral("compensated"));
    EXPECT_EQ(m_participant.calls("/reserve", id), 2) << "delivered twice ...";
    EXPECT_EQ(m_participant.effects("/reserve", id), 1) << "... taking effect once";
    EXPECT_EQ(m_participant.effects("/release", id), 1) << "and undone";
    EXPECT_TRUE(step(done, 0)
                    .value(QStringLiteral("result"))
                    .toObject()
                    .value(QStringLiteral("ambiguous"))
                    .toBool());
}

TEST_F(SagaTest, ARefusalAfterAnUnansweredAttemptStillUndoesWhatThatAttemptDid)
{
    // The first call applies the reservation and answers too late; the retry
    // is refused (409) by a participant that checks stock before its barrier.
    m_participant.program("/reserve", {0, 0, {}, 800, -1});
    startWorker();
    const QString id = start(quickReserveSaga(4));
    ASSERT_TRUE(waitUntil([&] { return m_participant.calls("/reserve", id) >= 1; }, 5000));
    m_participant.program("/reserve", {409, 100, {}, 0, -1});
    const QJsonObject done = waitFor(id, QStringLiteral("compensated"));
    EXPECT_LT(step(done, 0).value(QStringLiteral("attempts")).toInt(), 4)
        << "refused, not out of retries";
    EXPECT_EQ(m_participant.effects("/reserve", id), 1) << "the first attempt took effect";
    EXPECT_EQ(m_participant.effects("/release", id), 1) << "and is undone";
}

TEST_F(SagaTest, ADeclinedChargeCompensatesTheStepsBeforeIt)
{
    startWorker();
    const QString id = start(orderSaga(QStringLiteral("tok_chargeDeclined")));
    const QJsonObject saga = waitFor(id, QStringLiteral("compensated"));
    EXPECT_EQ(m_participant.effects("/release", id), 1);
    EXPECT_EQ(m_participant.calls("/confirm", id), 0);
    EXPECT_EQ(step(saga, 1).value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.refunds"), QStringLiteral("0"));
    expectLedgerBalances();
}

TEST_F(SagaTest, TheSameKeyReturnsTheSameSagaAndAnotherBodyIsRefused)
{
    const HttpReply first = postSaga(orderSaga(), "order-key");
    const HttpReply again = postSaga(orderSaga(), "order-key");
    ASSERT_EQ(first.status, 200) << first.body.constData();
    EXPECT_EQ(again.status, 200);
    EXPECT_EQ(again.body, first.body);
    EXPECT_EQ(again.header("idempotent-replayed"), QByteArray("true"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.sagas"), QStringLiteral("1"));

    QJsonObject other = orderSaga();
    other.insert(QStringLiteral("business_key"), QStringLiteral("order-1002"));
    const HttpReply reused = postSaga(other, "order-key");
    EXPECT_EQ(reused.status, 422) << reused.body.constData();
    EXPECT_TRUE(reused.body.contains("idempotency_key_in_use"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.sagas"), QStringLiteral("1"));
}

TEST_F(SagaTest, BadDefinitionsAreRefusedNamingTheFieldAndWriteNothing)
{
    struct Case {
        const char *json;
        const char *param;
    };
    const Case cases[] = {
        {R"({"steps":[]})", "name"},
        {R"({"name":"o","steps":[]})", "steps"},
        {R"({"name":"o","steps":[{"name":"a"}]})", "steps[0].action_url"},
        {R"({"name":"o","steps":[{"name":"a","action_url":"ftp://x/y"}]})", "steps[0].action_url"},
        {R"({"name":"o","steps":[{"name":"a","kind":"charge","currency":"usd","amount":-5,)"
         R"("source":"tok_visa"}]})",
         "steps[0].amount"},
        {R"({"name":"o","steps":[{"name":"a","kind":"refund","charge_step":"nope"}]})",
         "steps[0].charge_step"},
        {R"({"name":"o","steps":[{"name":"a","action_url":"http://h/a","retry":{"attempts":0}}]})",
         "steps[0].retry.attempts"},
        {R"({"name":"o","colour":"red","steps":[{"name":"a","action_url":"http://h/a"}]})",
         "colour"},
    };
    int key = 0;
    for (const Case &each : cases) {
        HttpClient::Headers headers = auth();
        headers.append(std::pair<QByteArray, QByteArray>("Content-Type", "application/json"));
        headers.append(std::pair<QByteArray, QByteArray>("Idempotency-Key",
                                                         "bad-" + QByteArray::number(++key)));
        const HttpReply reply = m_client->request("POST", "/v1/sagas", headers, each.json);
        EXPECT_EQ(reply.status, 400) << each.json;
        EXPECT_EQ(QJsonDocument::fromJson(reply.body)
                      .object()
                      .value(QStringLiteral("error"))
                      .toObject()
                      .value(QStringLiteral("param"))
                      .toString(),
                  QString::fromLatin1(each.param))
            << each.json << " -> " << reply.body.constData();
    }
    EXPECT_EQ(postSaga(orderSaga(), {}).status, 400) << "a key is required";
    {
        // A deployment without --allow-http: a plain http:// participant is
        // refused at the door, naming the step's field.
        PlainHttpRefused plainRefused;
        HttpClient::Headers headers = auth();
        headers.append(std::pair<QByteArray, QByteArray>("Content-Type", "application/json"));
        headers.append(std::pair<QByteArray, QByteArray>("Idempotency-Key", "bad-plain"));
        const HttpReply reply =
            m_client->request("POST", "/v1/sagas", headers,
                              R"({"name":"o","steps":[{"name":"a","action_url":"http://h/a"}]})");
        EXPECT_EQ(reply.status, 400);
        const QJsonObject error =
            QJsonDocument::fromJson(reply.body).object().value(QStringLiteral("error")).toObject();
        EXPECT_EQ(error.value(QStringLiteral("param")).toString(),
                  QStringLiteral("steps[0].action_url"));
        EXPECT_TRUE(error.value(QStringLiteral("message"))
                        .toString()
                        .contains(QLatin1String("plain http://")))
            << reply.body.constData();
    }
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.sagas"), QStringLiteral("0"));
}

TEST_F(SagaTest, SagasAreListedByStatusNewestFirstWithKeysetPaging)
{
    startWorker();
    QStringList ids;
    for (int i = 0; i < 3; ++i)
        ids << start(orderSaga());
    for (const QString &id : std::as_const(ids))
        waitFor(id, QStringLiteral("succeeded"));
    const QJsonObject page =
        QJsonDocument::fromJson(get("/v1/sagas?status=succeeded&limit=2").body).object();
    const QJsonArray data = page.value(QStringLiteral("data")).toArray();
    ASSERT_EQ(data.size(), 2);
    EXPECT_TRUE(page.value(QStringLiteral("has_more")).toBool());
    EXPECT_EQ(data.at(0).toObject().value(QStringLiteral("id")).toString(), ids.at(2));
    const QJsonObject next =
        QJsonDocument::fromJson(
            get("/v1/sagas?status=succeeded&limit=2&starting_after=" + ids.at(1).toUtf8()).body)
            .object();
    ASSERT_EQ(next.value(QStringLiteral("data")).toArray().size(), 1);
    EXPECT_FALSE(next.value(QStringLiteral("has_more")).toBool());
    EXPECT_EQ(QJsonDocument::fromJson(get("/v1/sagas?status=parked").body)
                  .object()
                  .value(QStringLiteral("data"))
                  .toArray()
                  .size(),
              0);
    EXPECT_EQ(get("/v1/sagas?status=lost").status, 400);
}

// kill -9 of a worker at every step boundary of a 3-step saga: another worker
// takes the saga over once the lease expires and finishes it; each action
// takes effect once (a delivery the dead worker never recorded is repeated,
// and the participant's barrier absorbs it), the card is charged once, and the
// ledger balances.
class SagaWorkerCrashTest : public SagaTest, public ::testing::WithParamInterface<const char *> {};

TEST_P(SagaWorkerCrashTest, AnotherWorkerFinishesTheSagaAndNothingTakesEffectTwice)
{
    QJsonObject saga{
        {QStringLiteral("name"), QStringLiteral("order")},
        {QStringLiteral("steps"),
         QJsonArray{httpStep(QStringLiteral("reserve"), "/reserve", "/release"), chargeStep(),
                    httpStep(QStringLiteral("confirm"), "/confirm", "/unconfirm")}}};
    const QString id = start(saga);
    auto doomed = spawnWorker(QString::fromLatin1(GetParam()));
    ASSERT_TRUE(doomed->waitForFinished(20000)) << "the worker never reached " << GetParam();
    ASSERT_EQ(doomed->exitCode(), 86) << "the worker should have died at " << GetParam();
    EXPECT_NE(fetch(id).value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));

    startWorker();
    waitFor(id, QStringLiteral("succeeded"));
    for (const QByteArray path : {"/reserve", "/confirm"}) {
        EXPECT_EQ(m_participant.effects(path, id), 1) << path.constData();
        EXPECT_LE(m_participant.calls(path, id), 2) << path.constData();
    }
    EXPECT_EQ(m_participant.calls("/release") + m_participant.calls("/unconfirm"), 0);
    EXPECT_EQ(scalar("SELECT count(*) || ' ' || sum(amount_captured) FROM keel.charges"),
              QStringLiteral("1 2500"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.sim_channel_operations WHERE operation = "
                     "'authorize'"),
              QStringLiteral("1"));
    expectLedgerBalances();
}

INSTANTIATE_TEST_SUITE_P(EveryStepBoundary, SagaWorkerCrashTest,
                         ::testing::Values("saga_action_started#1", "saga_action_answered#1",
                                           "saga_action_started#2", "saga_action_answered#2",
                                           "saga_action_started#3", "saga_action_answered#3"),
                         [](const ::testing::TestParamInfo<const char *> &point) {
                             QString name = QString::fromLatin1(point.param);
                             name.replace(u'#', QStringLiteral("_step"));
                             return name.toStdString();
                         });

} // namespace
} // namespace keel::test
