#pragma once

#include "core/Result.h"
#include "core/idempotency/IdempotencyStore.h"

namespace keel {

// What a request must do when its Idempotency-Key is already taken.
struct GateVerdict {
    enum Kind {
        Replay,   // the first request finished: send its response again
        Mismatch, // same key, different request: 422
        InFlight, // the first request is still running: 409 + Retry-After
        Resume,   // its holder went silent and this request took the key over
        Vanished, // expired between the two looks: try to reserve again
    } kind = InFlight;
    StoredResponse response;
    int retryAfterSeconds = 1;
};

Result<GateVerdict> inspectTakenKey(IdempotencyStore &store, const QByteArray &keyHash,
                                    const QByteArray &requestHash);

} // namespace keel
