#include "core/runtime/NotificationLoop.h"

#include "core/runtime/WakeupLoop.h"

namespace keel {

std::unique_ptr<NotificationLoop> NotificationLoop::start(NotificationLoopOptions options)
{
    std::unique_ptr<NotificationLoop> loop(new NotificationLoop);
    const NotificationOptions sender = options.sender;
    loop->m_loop = WakeupLoop::start({options.settings,
                                      {NotificationSender::channel()},
                                      options.senders,
                                      options.pollMs,
                                      QStringLiteral("notifications"),
                                      [sender](LibpqConnection &connection) -> Result<bool> {
                                          Result<NotificationPass> pass =
                                              NotificationSender(connection, sender).runOnce();
                                          if (!pass)
                                              return pass.error();
                                          return pass->delivered + pass->failed + pass->parked > 0;
                                      }});
    return loop;
}

NotificationLoop::~NotificationLoop()
{
    stop();
}

void NotificationLoop::stop()
{
    if (m_loop)
        m_loop->stop();
}

bool NotificationLoop::listening() const
{
    return m_loop->listening();
}

} // namespace keel
