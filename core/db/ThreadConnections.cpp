#include "core/db/ThreadConnections.h"

#include "core/db/ConnectionSettings.h"
#include "core/db/PgConnection.h"

#include <QHash>

#include <memory>

namespace keel {
namespace {
thread_local QHash<QString, std::shared_ptr<PgConnection>> t_sessions;
}

Result<PgConnection *> ThreadConnections::get(const ConnectionSettings &settings)
{
    const QString key = settings.conninfo();
    if (auto it = t_sessions.find(key); it != t_sessions.end()) {
        PgConnection *session = it->get();
        if (session->healthy())
            return session;
        // Left inside a transaction by an error path, or the server went away.
        if (session->exec("ROLLBACK").ok() && session->healthy())
            return session;
        if (session->reset().ok())
            return session;
        t_sessions.erase(it);
    }
    Result<PgConnection> opened = PgConnection::open(settings);
    if (!opened)
        return opened.error();
    auto session = std::make_shared<PgConnection>(std::move(opened).value());
    t_sessions.insert(key, session);
    return session.get();
}

} // namespace keel
