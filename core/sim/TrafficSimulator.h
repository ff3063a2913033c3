#pragma once

#include "core/Result.h"

#include <QString>

#include <atomic>
#include <functional>

namespace keel {

struct SimulationOptions {
    QString url; // http://host:port of a keel gateway
    QString apiKey;
    double ratePerSecond = 20;
    int seconds = 60; // 0: until stop()
    int clients = 4;
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
// with a different body, declined cards, authorize-then-capture, refunds.
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
    std::atomic<bool> m_stopping{false};
};

} // namespace keel
