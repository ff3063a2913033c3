#include "core/db/ThreadConnections.h"

#include "core/db/ConnectionSettings.h"
#include "core/db/LibpqConnection.h"

#include <QHash>

#include <memory>

namespace keel {
namespace {
thread_local QHash<QString, std::shared_ptr<LibpqConnection>> t_sessions;
}

Result<LibpqConnection *> ThreadConnections::get(const ConnectionSettings &settings)
{
    const QString key = settings.conninfo();
    if (auto it = t_sessions.find(key); it != t_sessions.end()) {
        LibpqConnection *session = it->get();
        if (session->healthy())
            return session;
        // Left inside a transaction by an error path, or the server went away.
        if (session->exec("ROLLBACK").ok() && session->healthy())
            return session;
        if (session->reset().ok())
            return session;
        t_sessions.erase(it);
    }
    Result<LibpqConnection> opened = LibpqConnection::open(settings);
    if (!opened)
        return opened.error();
    auto session = std::make_shared<LibpqConnection>(std::move(opened).value());
    t_sessions.insert(key, session);
    return session.get();
}

} // namespace keel
