#pragma once

#include "core/Result.h"
#include "core/idempotency/IdempotencyStore.h"
#include "core/saga/SagaRecord.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace keel {

class IdempotencyKey;
class LibpqConnection;
struct Merchant;

// What a saga request came to; the API layer decides how a client is told.
struct SagaOutcome {
    enum class Kind {
        Saga,     // `saga` as it now stands
        List,     // `sagas`, newest first, and whether more follow
        Replayed, // the key's first answer (`stored`), to be sent again as it was
        KeyReusedDifferently,
        NotFound,         // `reference` is the id asked for
        StoreUnavailable, // the database failed; try again with the same key
    };
    Kind kind = Kind::StoreUnavailable;
    SagaRecord saga;
    QList<SagaRecord> sagas;
    bool hasMore = false;
    StoredResponse stored;
    QString reference;
    Error error; // the cause of StoreUnavailable, for logs

    static SagaOutcome of(Kind kind)
    {
        SagaOutcome outcome;
        outcome.kind = kind;
        return outcome;
    }
    static SagaOutcome failure(Error error)
    {
        SagaOutcome outcome;
        outcome.error = std::move(error);
        return outcome;
    }
};

// Renders a new saga as the reply its Idempotency-Key keeps; implemented by
// the API layer, called inside the transaction that creates the saga.
class SagaReplyRenderer {
public:
    virtual ~SagaReplyRenderer() = default;
    virtual StoredResponse render(const SagaRecord &saga) const = 0;
};

struct SagaListFilter {
    std::optional<QString> status;
    int limit = 10;
    std::optional<QString> startingAfter; // a saga's public id: the page after it
};

// Sagas for merchants: start one (keyed, exactly once), read one, list them.
class SagaService final {
public:
    SagaService(LibpqConnection &connection, IdempotencyPolicy policy, QString instance);

    // Creates the saga and stores the key's reply in one transaction, so the
    // key never waits on anything: a retry finds the saga or nothing.
    SagaOutcome start(const Merchant &merchant, const SagaDefinition &definition,
                      const IdempotencyKey &key, const QByteArray &fingerprint,
                      const SagaReplyRenderer &replies);
    SagaOutcome retrieve(const Merchant &merchant, const QString &publicId);
    SagaOutcome list(const Merchant &merchant, const SagaListFilter &filter);

    // The fingerprint of a saga request: its definition in canonical form.
    static QByteArray fingerprintOf(const SagaDefinition &definition);

private:
    SagaOutcome answerTakenKey(const QByteArray &keyHash, const QByteArray &fingerprint);

    LibpqConnection &m_connection;
    IdempotencyStore m_keys;
};

} // namespace keel
