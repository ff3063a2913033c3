#pragma once

namespace keel {

// Binds 127.0.0.1:port (0: any free one) for a moment and returns the port
// bound, or 0 if it is taken: how embedded servers choose their ports.
int bindLoopback(int port = 0);

} // namespace keel
