#include "core/runtime/KeptConnection.h"

#include "core/db/LibpqConnection.h"

namespace keel {

KeptConnection::KeptConnection(ConnectionSettings settings) : m_settings(std::move(settings)) {}

KeptConnection::~KeptConnection() = default;

Result<LibpqConnection *> KeptConnection::get()
{
    if (m_connection) {
        if (Status usable = m_connection->ensureHealthy(); !usable)
            return usable.error();
        return m_connection.get();
    }
    Result<LibpqConnection> opened = LibpqConnection::open(m_settings);
    if (!opened)
        return opened.error();
    m_connection = std::make_unique<LibpqConnection>(std::move(opened).value());
    return m_connection.get();
}

} // namespace keel
