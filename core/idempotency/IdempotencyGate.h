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

// What a taken key's row says, before anything is written: read in this
// order, so a different request never sees another's response.
enum class TakenKey {
    Vanished, // no row any more (expired between the two looks)
    Mismatch, // the row belongs to a different request
    Finished, // its response is kept
    Stale,    // still processing, its holder silent past the lock timeout
    Running,  // still processing within the lock timeout
};
TakenKey readTakenKey(const std::optional<IdempotencyRecord> &record, const QByteArray &requestHash,
                      qint64 lockTimeoutMs);

Result<GateVerdict> inspectTakenKey(IdempotencyStore &store, const QByteArray &keyHash,
                                    const QByteArray &requestHash);

} // namespace keel
