#include "core/idempotency/IdempotencyGate.h"

namespace keel {

TakenKey readTakenKey(const std::optional<IdempotencyRecord> &record, const QByteArray &requestHash,
                      qint64 lockTimeoutMs)
{
    if (!record)
        return TakenKey::Vanished;
    if (record->requestHash != requestHash)
        return TakenKey::Mismatch;
    if (!record->processing)
        return TakenKey::Finished;
    return record->lockAgeMs > lockTimeoutMs ? TakenKey::Stale : TakenKey::Running;
}

Result<GateVerdict> inspectTakenKey(IdempotencyStore &store, const QByteArray &keyHash,
                                    const QByteArray &requestHash)
{
    Result<std::optional<IdempotencyRecord>> found = store.find(keyHash);
    if (!found)
        return found.error();
    GateVerdict verdict;
    switch (readTakenKey(*found, requestHash, store.policy().lockTimeoutMs)) {
    case TakenKey::Vanished:
        verdict.kind = GateVerdict::Vanished;
        return verdict;
    case TakenKey::Mismatch:
        verdict.kind = GateVerdict::Mismatch;
        return verdict;
    case TakenKey::Finished:
        verdict.kind = GateVerdict::Replay;
        verdict.response = *(*found)->response;
        return verdict;
    case TakenKey::Stale: {
        Result<bool> taken = store.takeOver(keyHash);
        if (!taken)
            return taken.error();
        if (*taken) {
            verdict.kind = GateVerdict::Resume;
            return verdict;
        }
        break; // another request took it over first
    }
    case TakenKey::Running:
        break;
    }
    verdict.kind = GateVerdict::InFlight;
    verdict.retryAfterSeconds = IdempotencyStore::retryAfterSeconds(**found);
    return verdict;
}

} // namespace keel
