#include "core/db/ThreadSessions.h"

#include "core/db/ConnectionSettings.h"
#include "core/db/PgSession.h"

#include <QHash>

#include <memory>

namespace keel {
namespace {
thread_local QHash<QString, std::shared_ptr<PgSession>> t_sessions;
}

Result<PgSession *> ThreadSessions::get(const ConnectionSettings &settings)
{
    const QString key = settings.conninfo();
    if (auto it = t_sessions.find(key); it != t_sessions.end()) {
        PgSession *session = it->get();
        if (session->healthy())
            return session;
        // Left inside a transaction by an error path, or the server went away.
        if (session->exec("ROLLBACK").ok() && session->healthy())
            return session;
        if (session->reset().ok())
            return session;
        t_sessions.erase(it);
    }
    Result<PgSession> opened = PgSession::open(settings);
    if (!opened)
        return opened.error();
    auto session = std::make_shared<PgSession>(std::move(opened).value());
    t_sessions.insert(key, session);
    return session.get();
}

} // namespace keel
