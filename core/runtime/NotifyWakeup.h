#pragma once

#include "core/db/ConnectionSettings.h"

#include <QStringList>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

namespace keel {

class ChangeListener;

// What a background loop sleeps on: LISTEN on some channels (on its own
// connection), a poll interval as the fallback, and stop().
class NotifyWakeup final {
public:
    NotifyWakeup(const ConnectionSettings &settings, const QStringList &channels);
    ~NotifyWakeup();
    Q_DISABLE_COPY_MOVE(NotifyWakeup)

    // Up to `milliseconds`; returns at once if a notification arrived since
    // the previous sleep ended (while the loop was busy), early on one that
    // arrives meanwhile, or on stop().
    void sleep(int milliseconds);
    // Wakes every sleeper for good; false if it had already been called.
    bool stop();
    bool stopping() const { return m_stopping; }
    // Whether LISTEN is in place now (a notification sent before is missed
    // until the next poll).
    bool listening() const { return m_listening; }
    // Whether a notification arrived since the last sleep ended, so the next
    // sleep returns at once.
    bool announced();

private:
    std::unique_ptr<ChangeListener> m_listener;
    std::mutex m_mutex;
    std::condition_variable m_wakeup;
    quint64 m_announced = 0;
    quint64 m_consumed = 0; // m_announced when the last sleep ended
    std::atomic<bool> m_stopping{false};
    std::atomic<bool> m_listening{false};
};

} // namespace keel
