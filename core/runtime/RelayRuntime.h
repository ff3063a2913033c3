#pragma once

#include "core/Result.h"
#include "core/db/ConnectionSettings.h"
#include "core/outbox/OutboxRelay.h"

#include <QStringList>

#include <atomic>
#include <memory>
#include <thread>

namespace keel {

class FailureLog;
class NotifyWakeup;
class LibpqConnection;

struct RelayRuntimeOptions {
    ConnectionSettings settings;
    RelayOptions relay;
    int pollMs = 1000;                    // the fallback when no notification arrives
    int keepPublishedSeconds = 7 * 86400; // published rows are swept after this
    QString catchAllQueue;                // see AmqpPublisher::setCatchAllQueue
    QStringList catchAllBindings{QStringLiteral("#")};
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

    RelayRuntimeOptions m_options;
    std::unique_ptr<LibpqConnection> m_housekeeping;
    std::unique_ptr<FailureLog> m_failures;
    std::unique_ptr<NotifyWakeup> m_wakeup;
    std::thread m_thread;
    std::atomic<bool> m_brokerDown{false}; // for the thread's own log lines
};

} // namespace keel
