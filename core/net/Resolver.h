#pragma once

#include <QByteArray>
#include <QString>

#include <sys/socket.h>

#include <vector>

namespace keel {

class Deadline;

// One address a host name resolved to, ready for connect().
struct ResolvedAddress {
    sockaddr_storage address{};
    socklen_t length = 0;
    int family = 0;
};

// The system's resolver (getaddrinfo), waited on no longer than `deadline`:
// a resolver that hangs fails the call in time instead of holding it past
// its lease. `host` is ASCII (an IDN host in its xn-- form). An empty list
// and `error` set when nothing was found in time.
std::vector<ResolvedAddress> resolveWithin(const QByteArray &host, int port,
                                           const Deadline &deadline, QString *error);

} // namespace keel
