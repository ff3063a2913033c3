#include "core/idempotency/IdempotencyGate.h"

namespace keel {

Result<GateVerdict> inspectTakenKey(IdempotencyStore &store, const QByteArray &keyHash,
                                    const QByteArray &requestHash)
{
    Result<std::optional<IdempotencyRecord>> found = store.find(keyHash);
    if (!found)
        return found.error();
    GateVerdict verdict;
    if (!found->has_value()) {
        verdict.kind = GateVerdict::Vanished;
        return verdict;
    }
    const IdempotencyRecord &record = **found;
    if (record.requestHash != requestHash) {
        verdict.kind = GateVerdict::Mismatch;
        return verdict;
    }
    if (!record.processing) {
        verdict.kind = GateVerdict::Replay;
        verdict.response = *record.response;
        return verdict;
    }
    if (record.lockAgeMs > store.policy().lockTimeoutMs) {
        Result<bool> taken = store.takeOver(keyHash);
        if (!taken)
            return taken.error();
        if (*taken) {
            verdict.kind = GateVerdict::Resume;
            return verdict;
        }
    }
    verdict.kind = GateVerdict::InFlight;
    verdict.retryAfterSeconds = IdempotencyStore::retryAfterSeconds(record);
    return verdict;
}

} // namespace keel
