#pragma once

#include "GatewayTest.h"
#include "KeelProcess.h"
#include "TestParticipant.h"
#include "WaitUntil.h"

#include "core/db/LibpqConnection.h"
#include "core/ledger/Ledger.h"
#include "core/runtime/WorkerRuntime.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

namespace keel::test {

using Behaviour = TestParticipant::Behaviour;

// Fast retries, so a test walks through every schedule in seconds.
inline QJsonObject quickRetry(int attempts, int timeoutMs = 2000)
{
    return {{QStringLiteral("attempts"), attempts},
            {QStringLiteral("backoff_ms"), 20},
            {QStringLiteral("max_backoff_ms"), 100},
            {QStringLiteral("timeout_ms"), timeoutMs}};
}

// A gateway and a database with a merchant, a local participant server, and
// an in-process saga worker to start (tests may adjust m_workerOptions
// first); helpers post sagas and wait for their outcome through the API.
class SagaTest : public RunningGatewayTest {
protected:
    void SetUp() override
    {
        RunningGatewayTest::SetUp();
        if (HasFatalFailure())
            return;
        auto connection = LibpqConnection::open(settings());
        ASSERT_TRUE(connection.ok());
        m_connection = std::make_unique<LibpqConnection>(std::move(connection).value());
        m_workerOptions.settings = m_serviceLogin;
        m_workerOptions.channel = simulatedChannel(m_channel);
        m_workerOptions.idempotency.lockTimeoutMs = 1000;
        m_workerOptions.saga.forwardThreads = 2;
        m_workerOptions.saga.compensateThreads = 2;
        m_workerOptions.saga.pollMs = 100;
        m_workerOptions.saga.leaseMs = 1000;
    }
    void TearDown() override
    {
        m_connection.reset();
        if (m_worker)
            m_worker->stop();
        m_worker.reset();
        RunningGatewayTest::TearDown();
    }

    void startWorker()
    {
        auto runtime = WorkerRuntime::start(m_workerOptions);
        ASSERT_TRUE(runtime.ok()) << qPrintable(runtime.error().message);
        m_worker = std::move(runtime).value();
    }

    QJsonObject httpStep(const QString &name, const QByteArray &action,
                         const QByteArray &compensate = {}, int attempts = 3)
    {
        QJsonObject step{{QStringLiteral("name"), name},
                         {QStringLiteral("action_url"), m_participant.url(action)},
                         {QStringLiteral("payload"), QJsonObject{{QStringLiteral("sku"), 7}}},
                         {QStringLiteral("retry"), quickRetry(attempts)},
                         {QStringLiteral("compensation_retry"), quickRetry(2)}};
        if (!compensate.isEmpty())
            step.insert(QStringLiteral("compensate_url"), m_participant.url(compensate));
        return step;
    }
    static QJsonObject chargeStep(const QString &source = QStringLiteral("tok_visa"))
    {
        return {{QStringLiteral("name"), QStringLiteral("charge")},
                {QStringLiteral("kind"), QStringLiteral("charge")},
                {QStringLiteral("amount"), 2500},
                {QStringLiteral("currency"), QStringLiteral("usd")},
                {QStringLiteral("source"), source},
                {QStringLiteral("compensation_retry"), quickRetry(1)}};
    }
    // The seed's order saga: reserve inventory, charge, confirm, notify.
    // An order saga cut down to its reservation, tried `attempts` times with a 200 ms timeout.
    QJsonObject quickReserveSaga(int attempts)
    {
        QJsonObject reserve = httpStep(QStringLiteral("reserve"), "/reserve", "/release", attempts);
        reserve.insert(QStringLiteral("retry"), quickRetry(attempts, 200));
        QJsonObject saga = orderSaga();
        saga.insert(QStringLiteral("steps"), QJsonArray{reserve});
        return saga;
    }

    QJsonObject orderSaga(const QString &source = QStringLiteral("tok_visa"))
    {
        return {{QStringLiteral("name"), QStringLiteral("order")},
                {QStringLiteral("business_key"), QStringLiteral("order-1001")},
                {QStringLiteral("steps"),
                 QJsonArray{httpStep(QStringLiteral("reserve"), "/reserve", "/release"),
                            chargeStep(source),
                            httpStep(QStringLiteral("confirm"), "/confirm", "/unconfirm"),
                            httpStep(QStringLiteral("notify"), "/notify")}}};
    }

    HttpReply postSaga(const QJsonObject &saga, const QByteArray &key)
    {
        HttpClient::Headers headers = auth();
        headers.append(std::pair<QByteArray, QByteArray>("Content-Type", "application/json"));
        if (!key.isEmpty())
            headers.append(std::pair<QByteArray, QByteArray>("Idempotency-Key", key));
        return m_client->request("POST", "/v1/sagas", headers,
                                 QJsonDocument(saga).toJson(QJsonDocument::Compact));
    }
    // Posts the saga and returns its id (empty on failure, recorded).
    QString start(const QJsonObject &saga)
    {
        const HttpReply reply = postSaga(saga, "saga-" + QByteArray::number(++m_keys));
        EXPECT_EQ(reply.status, 200) << reply.body.constData();
        return QJsonDocument::fromJson(reply.body).object().value(QStringLiteral("id")).toString();
    }
    QJsonObject fetch(const QString &id)
    {
        return QJsonDocument::fromJson(get("/v1/sagas/" + id.toUtf8()).body).object();
    }
    // Waits until the saga reaches `status`; returns the saga as last read.
    QJsonObject waitFor(const QString &id, const QString &status, int timeoutMs = 20000)
    {
        QJsonObject saga;
        const bool reached = waitUntil(
            [&] {
                saga = fetch(id);
                return saga.value(QStringLiteral("status")).toString() == status;
            },
            timeoutMs);
        EXPECT_TRUE(reached) << "saga " << qPrintable(id) << " is "
                             << qPrintable(saga.value(QStringLiteral("status")).toString())
                             << ", not " << qPrintable(status) << ": "
                             << QJsonDocument(saga).toJson().constData();
        return saga;
    }
    static QJsonObject step(const QJsonObject &saga, int index)
    {
        return saga.value(QStringLiteral("steps")).toArray().at(index).toObject();
    }
    void expectLedgerBalances()
    {
        auto session = LibpqConnection::open(settings());
        ASSERT_TRUE(session.ok());
        auto report = Ledger::audit(*session);
        ASSERT_TRUE(report.ok()) << qPrintable(report.error().message);
        EXPECT_TRUE(report->violations.isEmpty()) << qPrintable(report->violations.join(u'\n'));
    }

    // A `keel worker` process that exits (code 86) at the chaos point
    // `point` ("name#n": its n-th arrival there), left running otherwise.
    std::unique_ptr<QProcess> spawnWorker(const QString &point)
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        if (!point.isEmpty())
            environment.insert(QStringLiteral("KEEL_CHAOS_EXIT_AT"), point);
        auto process = std::make_unique<QProcess>();
        process->setProcessEnvironment(environment);
        process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        process->start(keelBinary(),
                       {QStringLiteral("worker"), QStringLiteral("--db"), m_serviceLogin.conninfo(),
                        QStringLiteral("--poll"), QStringLiteral("100"), QStringLiteral("--lease"),
                        QStringLiteral("1000"), QStringLiteral("--lock-timeout"),
                        QStringLiteral("1000"), QStringLiteral("--forward"), QStringLiteral("1"),
                        QStringLiteral("--compensate"), QStringLiteral("1"),
                        QStringLiteral("--allow-http")});
        EXPECT_TRUE(process->waitForStarted(10000));
        return process;
    }

    TestParticipant m_participant;
    std::unique_ptr<LibpqConnection> m_connection; // superuser, to the test's database
    WorkerOptions m_workerOptions;
    std::unique_ptr<WorkerRuntime> m_worker;
    int m_keys = 0;
};

} // namespace keel::test
