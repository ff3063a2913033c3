#include "core/runtime/WakeupLoop.h"

#include "core/db/LibpqConnection.h"
#include "core/runtime/FailureLog.h"
#include "core/runtime/NotifyWakeup.h"

#include <algorithm>

namespace keel {
namespace {

constexpr int MaxPauseMs = 30000;

} // namespace

std::unique_ptr<WakeupLoop> WakeupLoop::start(WakeupLoopOptions options)
{
    std::unique_ptr<WakeupLoop> loop(new WakeupLoop);
    loop->m_options = std::move(options);
    loop->m_wakeup =
        std::make_unique<NotifyWakeup>(loop->m_options.settings, loop->m_options.channels);
    for (int i = 0; i < loop->m_options.threads; ++i)
        loop->m_threads.emplace_back([self = loop.get()] { self->run(); });
    return loop;
}

WakeupLoop::~WakeupLoop()
{
    stop();
}

void WakeupLoop::run()
{
    std::unique_ptr<LibpqConnection> connection;
    FailureLog failures;
    int pauseMs = 0;
    while (!m_wakeup->stopping()) {
        if (!connection || !connection->healthy()) {
            Result<LibpqConnection> opened = LibpqConnection::open(m_options.settings);
            connection =
                opened ? std::make_unique<LibpqConnection>(std::move(opened).value()) : nullptr;
            if (!opened)
                failures.note(m_options.task, opened.error());
        }
        const Result<bool> worked = connection ? m_options.pass(*connection) : Result<bool>(false);
        if (connection)
            failures.note(m_options.task, statusOf(worked));
        if (!connection || !worked) {
            pauseMs = std::min(MaxPauseMs, std::max(250, pauseMs * 2));
            m_wakeup->sleep(pauseMs);
            continue;
        }
        pauseMs = 0;
        if (!*worked)
            m_wakeup->sleep(m_options.pollMs);
    }
}

bool WakeupLoop::listening() const
{
    return m_wakeup->listening();
}

void WakeupLoop::stop()
{
    if (!m_wakeup || !m_wakeup->stop())
        return;
    for (std::thread &thread : m_threads)
        if (thread.joinable())
            thread.join();
}

} // namespace keel
