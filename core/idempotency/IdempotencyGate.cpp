#include "core/idempotency/IdempotencyGate.h"

#include "core/http/ApiResponse.h"
#include "core/metrics/Metrics.h"

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

ApiResponse verdictResponse(const GateVerdict &verdict)
{
    Metrics &metrics = Metrics::instance();
    switch (verdict.kind) {
    case GateVerdict::Replay: {
        metrics.countIdempotency(Metrics::Idempotency::Replayed);
        ApiResponse response;
        response.status = verdict.response.status;
        response.headers = verdict.response.headers;
        response.body = verdict.response.body;
        response.setHeader("Idempotent-Replayed", "true");
        return response;
    }
    case GateVerdict::Mismatch: {
        metrics.countIdempotency(Metrics::Idempotency::Mismatch);
        ApiError error;
        error.status = 422;
        error.type = QStringLiteral("idempotency_error");
        error.code = QStringLiteral("idempotency_key_in_use");
        error.param = QStringLiteral("Idempotency-Key");
        error.message = QStringLiteral("this Idempotency-Key was already used with different "
                                       "parameters; use a new key for a new request");
        return error.response();
    }
    default: {
        metrics.countIdempotency(Metrics::Idempotency::InFlight);
        ApiError error;
        error.status = 409;
        error.type = QStringLiteral("idempotency_error");
        error.code = QStringLiteral("request_in_progress");
        error.message = QStringLiteral("a request with this Idempotency-Key is still being "
                                       "processed; retry after the Retry-After delay");
        error.shouldRetry = true;
        error.retryAfterSeconds = verdict.retryAfterSeconds;
        return error.response();
    }
    }
}

} // namespace keel
