#include "core/runtime/WakeupLoop.h"

#include "core/db/LibpqConnection.h"
#include "core/runtime/FailureLog.h"
#include "core/runtime/KeptConnection.h"
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
    KeptConnection connection(m_options.settings);
    FailureLog failures;
    int pauseMs = 0;
    while (!m_wakeup->stopping()) {
        const Result<LibpqConnection *> session = connection.get();
        const Result<bool> worked = session ? m_options.pass(**session) : Result<bool>(false);
        failures.note(m_options.task, session ? statusOf(worked) : Status(session.error()));
        if (!session || !worked) {
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
