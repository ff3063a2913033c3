#pragma once

#include <QString>

namespace keel {

// libpq's message for a failed connection has one entry per address it tried
// (a host name resolving to ::1 and 127.0.0.1, every host of a multi-host
// DSN), in the order tried. The last attempt is the one that decided the
// outcome; this puts it first, on one line, and keeps the others after it:
//   "SSL error: certificate verify failed (127.0.0.1, port 5432);
//    also tried ::1, port 5432: Connection refused"
// A message with one attempt comes back as that attempt on one line.
QString describeConnectionFailure(const QString &libpqMessage);

} // namespace keel
