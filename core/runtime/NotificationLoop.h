#pragma once

#include "core/db/ConnectionSettings.h"
#include "core/outbox/NotificationSender.h"

#include <memory>

namespace keel {

class WakeupLoop;

struct NotificationLoopOptions {
    ConnectionSettings settings;
    NotificationOptions sender;
    int senders = 2;   // threads, each with its own connection, POSTing at once
    int pollMs = 1000; // the fallback when no NOTIFY arrives (retries come due by time)
};

// Merchant notifications in a running `keel worker`: threads that deliver
// whatever is due when a notification is written (NOTIFY keel_notifications)
// or at the latest every pollMs (a WakeupLoop).
class NotificationLoop final {
public:
    static std::unique_ptr<NotificationLoop> start(NotificationLoopOptions options);
    ~NotificationLoop();
    Q_DISABLE_COPY_MOVE(NotificationLoop)

    void stop();
    bool listening() const;

private:
    NotificationLoop() = default;

    std::unique_ptr<WakeupLoop> m_loop;
};

} // namespace keel
