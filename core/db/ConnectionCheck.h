#pragma once

#include <QString>

namespace keel {

class ConnectionSettings;

// One connection attempt, to tell the connection dialog what to do next:
// connect, ask for a password (libpq says whether the server wanted one), or
// show why it failed. The message never contains the password.
struct ConnectionCheck {
    // PasswordRefused: the server asked for a password and refused the one given.
    enum class Outcome { Connected, NeedsPassword, PasswordRefused, Failed };

    Outcome outcome = Outcome::Failed;
    QString message;
    bool usedPassword = false; // the server asked for the password we gave

    static ConnectionCheck run(const ConnectionSettings &settings);
};

} // namespace keel
