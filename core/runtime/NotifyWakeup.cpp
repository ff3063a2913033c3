#include "core/runtime/NotifyWakeup.h"

#include "core/db/ChangeListener.h"

#include <chrono>

namespace keel {

NotifyWakeup::NotifyWakeup(const ConnectionSettings &settings, const QStringList &channels)
{
    ChangeListener::Callbacks callbacks;
    callbacks.notified = [this](const QString &, const QString &) {
        {
            std::lock_guard lock(m_mutex);
            ++m_announced;
        }
        m_wakeup.notify_all();
    };
    callbacks.stateChanged = [this](bool listening, const QString &) {
        m_listening = listening;
    };
    m_listener = std::make_unique<ChangeListener>(settings, channels, std::move(callbacks));
    m_listener->start();
}

NotifyWakeup::~NotifyWakeup()
{
    stop();
}

bool NotifyWakeup::announced()
{
    const std::lock_guard lock(m_mutex);
    return m_announced != m_consumed;
}

void NotifyWakeup::sleep(int milliseconds)
{
    std::unique_lock lock(m_mutex);
    m_wakeup.wait_for(lock, std::chrono::milliseconds(milliseconds),
                      [&] { return m_stopping || m_announced != m_consumed; });
    m_consumed = m_announced;
}

bool NotifyWakeup::stop()
{
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping)
            return false;
        m_stopping = true;
    }
    m_wakeup.notify_all();
    m_listener->stop();
    return true;
}

} // namespace keel
