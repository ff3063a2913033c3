#pragma once

namespace keel {

// Binds 127.0.0.1:port (0: any free one) for a moment and returns the port
// bound, or 0 if it is taken: how embedded servers choose their ports.
// `asServer`: bind as a server does (SO_REUSEADDR), so a port whose only
// sockets are closed connections waiting out TIME_WAIT counts as free — as
// it is for the server that owned it and restarts on it.
int bindLoopback(int port = 0, bool asServer = false);

} // namespace keel
