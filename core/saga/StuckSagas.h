#pragma once

#include "core/Result.h"

namespace keel {

class LibpqConnection;

// "Stuck" is computed, never stored: a saga that is not terminal and either
// without progress (a step reached, a status changed) for longer than its
// definition's threshold (stuck_after_seconds) or with a step
// past `attemptLimit` attempts (action and compensation together).
namespace stuckSagas {
inline constexpr int DefaultAttemptLimit = 5;
// The SQL condition on a saga row aliased `s`; $1 is the attempt limit.
const char *condition();
Result<qint64> count(LibpqConnection &connection, int attemptLimit = DefaultAttemptLimit);
} // namespace stuckSagas

} // namespace keel
