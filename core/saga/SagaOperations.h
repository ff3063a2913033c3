#pragma once

#include "core/Result.h"
#include "core/saga/SagaRecord.h"

#include <QString>

namespace keel {

class LibpqConnection;

// The manual actions people take on a saga (the console drives them; the
// approvals around them are the console's). Each names the saga's version as
// the person saw it and changes nothing if the saga has moved since.
enum class SagaAction {
    RetryNow,          // a waiting step or compensation is due now
    ForceCompensation, // stop going forward; undo what was done
    Park,              // stop for good and open a suspense case
    Resume,            // a parked saga compensates again; its case closes
    SkipStep,          // the current step (or compensation) counts as done
};

QString sagaActionName(SagaAction action);

struct SagaActionRequest {
    SagaAction action = SagaAction::RetryNow;
    QString sagaId;      // saga_...
    int seenVersion = 0; // the version the person acted on
    QString reason;      // required: why, in the person's words
    QString onBehalfOf;  // the person a service login acts for (a queued action's proposer)
};

struct SagaActionOutcome {
    enum class Kind {
        Done,       // `saga` as it now stands
        Moved,      // the saga changed since it was seen: `saga` is the new state
        NotAllowed, // the action does not apply to the saga's status (`message` says why)
        Busy,       // a worker is in the middle of an attempt; try again in a moment
        NotFound,
        Invalid, // `error` names the field (a missing reason)
        Failed,  // the database failed; `error` says how
    };
    Kind kind = Kind::Failed;
    SagaRecord saga;
    QString message;
    Error error;
};

// Applies manual actions through the same fenced writes the workers use, and
// records each in the saga's event log with the reason and the database
// user who acted.
class SagaOperations final {
public:
    explicit SagaOperations(LibpqConnection &connection) : m_connection(connection) {}

    SagaActionOutcome apply(const SagaActionRequest &request);

private:
    Status retryNow(SagaRecord &saga, const QJsonObject &detail);
    Status forceCompensation(SagaRecord &saga, const QJsonObject &detail);
    Status park(SagaRecord &saga, const QJsonObject &detail, const QString &reason);
    Status resume(SagaRecord &saga, const QJsonObject &detail, const QString &reason);
    Status skipStep(SagaRecord &saga, const QJsonObject &detail);
    // Why `action` does not apply to `saga` now; empty if it does.
    static QString refusal(SagaAction action, const SagaRecord &saga);

    LibpqConnection &m_connection;
};

} // namespace keel
