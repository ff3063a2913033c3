#pragma once

#include <QHash>
#include <QString>

#include <condition_variable>
#include <mutex>
#include <utility>

namespace keel {

// Bounds the calls in flight to each participant host, so one slow
// participant holds at most `perHost` worker threads and the rest keep
// serving everyone else.
class HostLimiter final {
public:
    explicit HostLimiter(int perHost) : m_perHost(perHost) {}
    Q_DISABLE_COPY_MOVE(HostLimiter)

    // A held slot, given back when it goes out of scope.
    class Slot final {
    public:
        Slot() = default;
        Slot(HostLimiter *limiter, QString host) : m_limiter(limiter), m_host(std::move(host)) {}
        Slot(Slot &&other) noexcept
            : m_limiter(std::exchange(other.m_limiter, nullptr)), m_host(std::move(other.m_host))
        {}
        Slot &operator=(Slot &&) = delete;
        ~Slot()
        {
            if (m_limiter)
                m_limiter->release(m_host);
        }
        explicit operator bool() const { return m_limiter != nullptr; }

    private:
        HostLimiter *m_limiter = nullptr;
        QString m_host;
    };

    // A slot for `host`, waiting up to `waitMs` for one; an empty slot if the
    // host stayed full.
    Slot acquire(const QString &host, int waitMs);
    int inFlight(const QString &host) const;

private:
    void release(const QString &host);

    const int m_perHost;
    mutable std::mutex m_mutex;
    std::condition_variable m_freed;
    QHash<QString, int> m_inFlight;
};

} // namespace keel
