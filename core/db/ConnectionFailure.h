#pragma once

#include <QString>

namespace keel {

class ConnectionSettings;

// Why a connection could not be made, as libpq's own status calls tell it
// (PQping, PQconnectionNeedsPassword), never from the wording of its English
// messages.
enum class ConnectionRefusal {
    BadParameters,   // libpq would not even try: the connection string is wrong
    NoServer,        // nothing answered at that address (down, wrong host or port, TLS failed)
    NotAccepting,    // the server answered that it is starting up or shutting down
    PasswordMissing, // the server asks for a password and none was given
    LoginRefused,    // the server is up and turned the login away: user, password, database,
                     // or no connection free (libpq does not tell these apart)
};

// Asks the server at `settings` why a connection fails (a ping and, when the
// server answers and no password was given, one more attempt; each at most
// connect_timeout, 5 s unless set). For the message after a failure only: it
// makes connections of its own, so each costs the server a login attempt.
ConnectionRefusal classifyConnectionRefusal(const ConnectionSettings &settings);

// What to check for each refusal, one clause ("is the server running, ...").
QString whatToCheck(ConnectionRefusal refusal, const ConnectionSettings &settings);

// libpq's message for a failed connection has one entry per address it tried
// (a host name resolving to ::1 and 127.0.0.1, every host of a multi-host
// DSN), in the order tried. The last attempt is the one that decided the
// outcome; this puts it first, on one line, and keeps the others after it:
//   "SSL error: certificate verify failed (127.0.0.1, port 5432);
//    also tried ::1, port 5432: Connection refused"
// A message with one attempt comes back as that attempt on one line.
QString describeConnectionFailure(const QString &libpqMessage);

} // namespace keel
