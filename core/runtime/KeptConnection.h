#pragma once

#include "core/Result.h"
#include "core/db/ConnectionSettings.h"

#include <memory>

namespace keel {

class LibpqConnection;

// The one connection a background loop works through: opened on first use,
// reset when it broke, and opened again on the next pass when the database
// could not be reached.
class KeptConnection final {
public:
    explicit KeptConnection(ConnectionSettings settings);
    ~KeptConnection();
    Q_DISABLE_COPY_MOVE(KeptConnection)

    // The connection, usable now, or why it cannot be.
    Result<LibpqConnection *> get();

private:
    ConnectionSettings m_settings;
    std::unique_ptr<LibpqConnection> m_connection;
};

} // namespace keel
