#include "core/runtime/KeptConnection.h"

#include "core/db/LibpqConnection.h"

namespace keel {

KeptConnection::KeptConnection(ConnectionSettings settings) : m_settings(std::move(settings)) {}

KeptConnection::~KeptConnection() = default;

Result<LibpqConnection *> KeptConnection::get()
{
    if (m_connection && m_connection->healthy())
        return m_connection.get();
    // A fresh connection rather than a reset: open() names the server that
    // answered (a multi-host DSN may land elsewhere) and describes a failure.
    m_connection.reset();
    Result<LibpqConnection> opened = LibpqConnection::open(m_settings);
    if (!opened)
        return opened.error();
    m_connection = std::make_unique<LibpqConnection>(std::move(opened).value());
    return m_connection.get();
}

} // namespace keel
