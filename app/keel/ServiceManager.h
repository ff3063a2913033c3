#pragma once

#include <QByteArray>

namespace keel::cli {

// Tells systemd (Type=notify) how the service stands, through the datagram
// socket it names in $NOTIFY_SOCKET; nothing without one. The protocol is
// sd_notify(3)'s, written here so that keel needs no libsystemd.
class ServiceManager final {
public:
    ServiceManager() = delete;
    // "READY=1": serving; systemd starts what waits on the unit.
    static void ready() { notify("READY=1"); }
    // "STOPPING=1": finishing what is in flight before exiting.
    static void stopping() { notify("STOPPING=1"); }
    // Whether the message reached a socket.
    static bool notify(const QByteArray &state);
};

} // namespace keel::cli
