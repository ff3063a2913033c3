#pragma once

#include <QString>

namespace keel {

class ConnectionSettings;

// One connection attempt, to tell the connection dialog what to do next:
// connect, ask for a password (libpq says whether the server wanted one), or
// show why it failed. The message never contains the password.
struct ConnectionCheck {
    enum class Outcome { Connected, NeedsPassword, Failed };

    Outcome outcome = Outcome::Failed;
    QString message;
    bool usedPassword = false; // the server asked for the password we gave

    static ConnectionCheck run(const ConnectionSettings &settings);
};

} // namespace keel
