#include "ui/ConsoleSession.h"

#include "ui/ConsoleShell.h"
#include "ui/LiveFeed.h"
#include "ui/MainWindow.h"
#include "ui/QueryWorker.h"

namespace keel {

ConsoleSession::ConsoleSession(const ConnectionSettings &primary,
                               const std::optional<ConnectionSettings> &replica,
                               ConsoleSettings *settings, QObject *parent)
    : QObject(parent), m_primary(std::make_unique<QueryWorker>(primary))
{
    m_primary->start();
    if (replica) {
        m_replica = std::make_unique<QueryWorker>(*replica);
        m_replica->start();
    }
    m_live = std::make_unique<LiveFeed>(primary);
    m_shell = std::make_unique<ConsoleShell>(
        m_primary.get(), m_replica ? m_replica.get() : m_primary.get(), settings, m_live.get());
    connect(m_shell.get(), &ConsoleShell::connectRequested, this,
            &ConsoleSession::connectRequested);
}

ConsoleSession::~ConsoleSession()
{
    m_shell.reset(); // the window first: nothing may wait on the threads below
    m_live.reset();
    if (m_replica)
        m_replica->stop();
    m_primary->stop();
}

MainWindow *ConsoleSession::window() const
{
    return m_shell->window();
}

} // namespace keel
