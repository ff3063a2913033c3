#pragma once

#include "core/Result.h"
#include "core/db/ConnectionSettings.h"
#include "core/outbox/NotificationSender.h"

#include <memory>
#include <thread>
#include <vector>

namespace keel {

class NotifyWakeup;

struct NotificationLoopOptions {
    ConnectionSettings settings;
    NotificationOptions sender;
    int senders = 2;   // threads, each with its own connection, POSTing at once
    int pollMs = 1000; // the fallback when no NOTIFY arrives (retries come due by time)
};

// Merchant notifications in a running `keel worker`: threads that deliver
// whatever is due when a notification is written (NOTIFY keel_notifications)
// or at the latest every pollMs; a lost database costs pauses growing to
// 30 s, then they carry on from the table.
class NotificationLoop final {
public:
    static std::unique_ptr<NotificationLoop> start(NotificationLoopOptions options);
    ~NotificationLoop();
    Q_DISABLE_COPY_MOVE(NotificationLoop)

    void stop();
    bool listening() const;

private:
    NotificationLoop() = default;
    void run();

    NotificationLoopOptions m_options;
    std::unique_ptr<NotifyWakeup> m_wakeup;
    std::vector<std::thread> m_threads;
};

} // namespace keel
