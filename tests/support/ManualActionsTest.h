#pragma once

#include "SagaTestFixture.h"

#include "core/saga/SagaStore.h"

namespace keel::test {

// Sagas a person acts on, as production runs it: the manual actions run in a
// worker's connection, logged in as a keel_gateway member (m_service).
class ManualActionsTest : public SagaTest {
protected:
    void SetUp() override
    {
        SagaTest::SetUp();
        if (HasFatalFailure())
            return;
        auto service = LibpqConnection::open(m_serviceLogin);
        ASSERT_TRUE(service.ok()) << qPrintable(service.error().message);
        m_service = std::make_unique<LibpqConnection>(std::move(service).value());
    }
    void TearDown() override
    {
        m_service.reset();
        SagaTest::TearDown();
    }

    // Retries that wait a minute: a failing step sits waiting until a person acts.
    static QJsonObject patientRetry()
    {
        return {{QStringLiteral("attempts"), 5},
                {QStringLiteral("backoff_ms"), 60000},
                {QStringLiteral("max_backoff_ms"), 60000},
                {QStringLiteral("timeout_ms"), 2000}};
    }
    // The order saga whose confirmation is down (`failures` times; -1:
    // always) and waits a minute per retry; returned once it waits.
    QString startWithConfirmDown(int failures = -1)
    {
        m_participant.program("/confirm", {503, failures, {}, 0, -1});
        QJsonObject saga = orderSaga();
        QJsonArray steps = saga.value(QStringLiteral("steps")).toArray();
        QJsonObject confirm = steps.at(2).toObject();
        confirm.insert(QStringLiteral("retry"), patientRetry());
        steps.replace(2, confirm);
        saga.insert(QStringLiteral("steps"), steps);
        const QString id = start(saga);
        EXPECT_TRUE(waitUntil(
            [&] { return m_participant.calls("/confirm", id) == 1 && !record(id).leased; }));
        return id;
    }
    SagaRecord record(const QString &id)
    {
        auto saga = SagaStore(*m_connection).findByPublicId(0, id);
        return saga && saga->has_value() ? **saga : SagaRecord();
    }

    std::unique_ptr<LibpqConnection> m_service; // the worker's login
};

} // namespace keel::test
