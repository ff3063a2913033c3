#pragma once

namespace keel {

// Named points where a chaos test may kill the process on purpose:
// KEEL_CHAOS_EXIT_AT=<name> makes the process exit at once (no clean-up, as a
// crash would) when it reaches that point; KEEL_CHAOS_EXIT_AT=<name>#<n> when it
// reaches it the n-th time. Unset, a point costs one branch.
void chaosPoint(const char *name);

} // namespace keel
