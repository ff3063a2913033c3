#pragma once

#include "core/Result.h"

namespace keel {

class ConnectionSettings;
class LibpqConnection;

// One libpq session per thread and connection settings, opened on first use,
// reconnected when broken, closed when the thread ends. Server threads that
// are not QThreads (the HTTP workers) use this instead of QSqlDatabase.
class ThreadConnections final {
public:
    ThreadConnections() = delete;
    static Result<LibpqConnection *> get(const ConnectionSettings &settings);
};

} // namespace keel
