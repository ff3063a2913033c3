#pragma once

#include "core/Result.h"
#include "core/db/ConnectionSettings.h"

#include <memory>

namespace keel {

class LibpqConnection;

// The one connection a background loop works through: opened on first use,
// and opened afresh on the next pass after it broke or could not be made.
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
