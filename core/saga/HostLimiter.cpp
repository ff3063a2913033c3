#include "core/saga/HostLimiter.h"

#include <chrono>

namespace keel {

HostLimiter::Slot HostLimiter::acquire(const QString &host, int waitMs)
{
    std::unique_lock lock(m_mutex);
    const bool free = m_freed.wait_for(lock, std::chrono::milliseconds(waitMs),
                                       [&] { return m_inFlight.value(host) < m_perHost; });
    if (!free)
        return {};
    ++m_inFlight[host];
    return Slot(this, host);
}

int HostLimiter::inFlight(const QString &host) const
{
    std::lock_guard lock(m_mutex);
    return m_inFlight.value(host);
}

void HostLimiter::release(const QString &host)
{
    {
        std::lock_guard lock(m_mutex);
        if (--m_inFlight[host] <= 0)
            m_inFlight.remove(host);
    }
    m_freed.notify_all();
}

} // namespace keel
