#pragma once

#include "core/Result.h"
#include "core/db/ConnectionSettings.h"
#include "core/outbox/OutboxRelay.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace keel {

class ChangeListener;
class FailureLog;
class PgConnection;

struct RelayRuntimeOptions {
    ConnectionSettings settings;
    RelayOptions relay;
    int pollMs = 1000;                    // the fallback when no notification arrives
    int keepPublishedSeconds = 7 * 86400; // published rows are swept after this
    QString catchAllQueue;                // see AmqpPublisher::setCatchAllQueue
};

// A running `keel relay`: a thread that publishes the outbox whenever rows
// are committed (NOTIFY keel_outbox) or at the latest every pollMs, and
// reconnects with growing pauses (up to 30 s) when the broker or the
// database goes away, resuming where the table says it stopped. The owner
// calls maintain() every few seconds (metrics, sweeping published rows).
class RelayRuntime final {
public:
    static Result<std::unique_ptr<RelayRuntime>> start(RelayRuntimeOptions options);
    ~RelayRuntime();
    Q_DISABLE_COPY_MOVE(RelayRuntime)

    void maintain();
    void stop();

private:
    RelayRuntime();
    void run();
    void sleep(int milliseconds);

    RelayRuntimeOptions m_options;
    std::unique_ptr<PgConnection> m_housekeeping;
    std::unique_ptr<FailureLog> m_failures;
    std::unique_ptr<ChangeListener> m_listener;
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_wakeup;
    quint64 m_announced = 0;
    std::atomic<bool> m_stopping{false};
    std::atomic<bool> m_brokerDown{false}; // for the thread's own log lines
};

} // namespace keel
