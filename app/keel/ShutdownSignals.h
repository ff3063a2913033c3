#pragma once

#include <csignal>
#include <ctime>
#include <pthread.h>

namespace keel::cli {

// Blocks SIGINT/SIGTERM/SIGHUP for the process and waits for one, waking up
// at a timeout so the caller can do periodic work. Construct it before
// starting threads, so that every thread inherits the block.
class ShutdownSignals final {
public:
    ShutdownSignals()
    {
        sigemptyset(&m_set);
        sigaddset(&m_set, SIGINT);
        sigaddset(&m_set, SIGTERM);
        sigaddset(&m_set, SIGHUP);
        pthread_sigmask(SIG_BLOCK, &m_set, nullptr);
    }
    // The signal received, or 0 after the timeout.
    int wait(int timeoutMs)
    {
        timespec timeout{timeoutMs / 1000, long(timeoutMs % 1000) * 1000000L};
        const int signal = sigtimedwait(&m_set, nullptr, &timeout);
        return signal > 0 ? signal : 0;
    }

    // Calls `maintain` every `periodMs` until a signal arrives; returns it.
    template <typename Maintain>
    int serve(Maintain maintain, int periodMs = 5000)
    {
        timespec last{};
        clock_gettime(CLOCK_MONOTONIC, &last);
        while (true) {
            if (const int signal = wait(500); signal != 0)
                return signal;
            timespec now{};
            clock_gettime(CLOCK_MONOTONIC, &now);
            if ((now.tv_sec - last.tv_sec) * 1000 + (now.tv_nsec - last.tv_nsec) / 1000000 >=
                periodMs) {
                maintain();
                last = now;
            }
        }
    }

private:
    sigset_t m_set;
};

} // namespace keel::cli
