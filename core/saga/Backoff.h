#pragma once

namespace keel {

struct RetryPolicy;

// The pause before the next try after `failures` failed tries (1 = the
// first): the policy's backoff doubled per failure, capped, with "equal
// jitter" (a random point in the upper half), so retries of many sagas that
// failed together spread out instead of arriving together again.
int backoffMs(const RetryPolicy &policy, int failures);

} // namespace keel
