#include "core/runtime/NotificationLoop.h"

#include "core/db/PgConnection.h"
#include "core/runtime/FailureLog.h"
#include "core/runtime/NotifyWakeup.h"

#include <algorithm>

namespace keel {
namespace {

constexpr int MaxPauseMs = 30000;

} // namespace

std::unique_ptr<NotificationLoop> NotificationLoop::start(NotificationLoopOptions options)
{
    std::unique_ptr<NotificationLoop> loop(new NotificationLoop);
    loop->m_options = std::move(options);
    loop->m_wakeup = std::make_unique<NotifyWakeup>(loop->m_options.settings,
                                                    QStringList{NotificationSender::channel()});
    for (int i = 0; i < loop->m_options.senders; ++i)
        loop->m_threads.emplace_back([self = loop.get()] { self->run(); });
    return loop;
}

NotificationLoop::~NotificationLoop()
{
    stop();
}

void NotificationLoop::run()
{
    std::unique_ptr<PgConnection> connection;
    FailureLog failures;
    int pauseMs = 0;
    while (!m_wakeup->stopping()) {
        if (!connection || !connection->healthy()) {
            Result<PgConnection> opened = PgConnection::open(m_options.settings);
            connection =
                opened ? std::make_unique<PgConnection>(std::move(opened).value()) : nullptr;
            if (!opened)
                failures.note(QStringLiteral("notifications"), opened.error());
        }
        Result<NotificationPass> pass =
            connection ? NotificationSender(*connection, m_options.sender).runOnce()
                       : Result<NotificationPass>(NotificationPass());
        if (connection)
            failures.note(QStringLiteral("notifications"), statusOf(pass));
        if (!connection || !pass) {
            pauseMs = std::min(MaxPauseMs, std::max(250, pauseMs * 2));
            m_wakeup->sleep(pauseMs);
            continue;
        }
        pauseMs = 0;
        if (pass->delivered + pass->failed + pass->parked == 0)
            m_wakeup->sleep(m_options.pollMs);
    }
}

bool NotificationLoop::listening() const
{
    return m_wakeup->listening();
}

void NotificationLoop::stop()
{
    if (!m_wakeup || !m_wakeup->stop())
        return;
    for (std::thread &thread : m_threads)
        if (thread.joinable())
            thread.join();
}

} // namespace keel
