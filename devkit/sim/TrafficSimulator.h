#pragma once

#include "core/Result.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QString>

#include <atomic>
#include <functional>

namespace keel {

// One request the simulator sent and what it was told (status 0: no answer).
struct SimulatedExchange {
    QByteArray key; // its Idempotency-Key
    QByteArray path;
    QByteArray body;
    int status = 0;
    QByteArray reply;
    qint64 sentMs = 0; // since the simulation began
    qint64 answeredMs = 0;
};

struct SimulationOptions {
    QString url; // http://host:port of a keel gateway
    QString apiKey;
    double ratePerSecond = 20;
    int seconds = 60; // 0: until stop()
    int clients = 4;
    // Set: some scenarios are order sagas (reserve, charge, confirm, notify)
    // whose HTTP steps call /reserve, /release, /confirm, /unconfirm and
    // /notify here, DTM-style (gid, branch_id and op in the query).
    QString participantUrl;
    // Only yuan orders, for a channel that takes nothing else (Alipay).
    bool yuanOnly = false;
    // Told of every exchange, from the client threads at once.
    std::function<void(const SimulatedExchange &)> record;
};

struct SimulationTally {
    std::atomic<qint64> requests{0};
    std::atomic<qint64> created{0};
    std::atomic<qint64> replayed{0};
    std::atomic<qint64> inFlight{0};
    std::atomic<qint64> mismatched{0};
    std::atomic<qint64> declined{0};
    std::atomic<qint64> refunded{0};
    std::atomic<qint64> failed{0}; // transport errors and 5xx
};

// Realistic traffic for a gateway, the way merchants' systems behave: new
// charges in several currencies, client retries with the same key, duplicates
// sent concurrently, the same order number under a fresh key, a key reused
// with a different body, declined cards, authorize-then-capture, refunds,
// and order sagas when given a participant to call.
class TrafficSimulator final {
public:
    explicit TrafficSimulator(SimulationOptions options);

    // Runs until the time is up or stop() is called; blocks the caller.
    Status run();
    void stop() { m_stopping = true; }
    const SimulationTally &tally() const { return m_tally; }

private:
    void client(int index);

    SimulationOptions m_options;
    SimulationTally m_tally;
    QElapsedTimer m_clock;
    std::atomic<bool> m_stopping{false};
};

} // namespace keel
