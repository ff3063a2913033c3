#pragma once

#include "ChaosRecord.h"

#include <QElapsedTimer>
#include <QStringList>

#include <atomic>
#include <thread>
#include <vector>

namespace keel::chaos {

struct ClientOptions {
    QStringList gateways;   // http://host:port of every gateway; any may be down
    QByteArray paymentsKey; // the merchant that charges and refunds
    QByteArray sagasKey;    // the merchant whose orders run as sagas
    QByteArray simulateKey; // keel simulate's merchant, for its requests left open
    QString participant;    // http://host:port of the saga participants
    quint64 seed = 0;
    int clients = 4;
    int pauseMs = 40;       // between one client's scenarios
    int patienceMs = 60000; // how long a client retries one key before giving up for now
    // One order saga in four waits seconds, not milliseconds, between
    // attempts of a failing step: a target the operator desk can act on
    // before it moves.
    bool patientSagas = false;
    // Only what Alipay takes: yuan, captured when paid.
    bool yuanSalesOnly = false;
    // Some payers take their time to confirm a payment code (WeChat Pay's
    // USERPAYING), a few past the moment keel reverses the order.
    bool slowPayers = false;
};

// Merchant systems sending charges, captures, refunds and order sagas to
// whichever gateway answers, retrying each Idempotency-Key until they get a
// final answer, and writing down everything they were told.
class ChaosClient final {
public:
    ChaosClient(ClientOptions options, ClientRecord &record, const QElapsedTimer &clock);
    ~ChaosClient();

    void start();
    // Stops new scenarios; requests in progress finish (or run out of patience).
    void stop();
    // The keys that never got a final answer, sent again until they do (as a
    // client's retry job would, once things are up), all within one budget:
    // how many are still open.
    int resolveOpenRequests(int budgetMs);

private:
    void run(int index);

    ClientOptions m_options;
    ClientRecord &m_record;
    const QElapsedTimer &m_clock;
    std::atomic<bool> m_stopping{false};
    std::vector<std::thread> m_threads;
};

} // namespace keel::chaos
