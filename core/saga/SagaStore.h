#pragma once

#include "core/Result.h"
#include "core/saga/SagaRecord.h"

#include <QJsonObject>
#include <QString>

#include <optional>

namespace keel {

class LibpqConnection;

// How one recorded outcome changes a step.
struct StepChange {
    QString status;                       // the step's new status
    std::optional<QByteArray> resultJson; // replaces the step's result when set
    QString lastError;                    // empty clears it
    QString lastResponse;                 // empty keeps the last one
    bool finished = false;                // the forward action ended (succeeded or failed)
    bool compensated = false;             // the compensation ended
    QString event = QStringLiteral("attempt_ended"); // what the step's event log calls it
};

// How one recorded outcome changes the saga.
struct SagaChange {
    QString status; // empty: unchanged
    int currentStep = 0;
    bool release = true; // give up the lease (the work waits, or moves pools)
    int delayMs = 0;     // released: due again after this long
    int addRounds = 0;   // a compensation round ended in failure
    QString lastError;   // empty: unchanged
    qint64 chargeId = 0; // 0: unchanged
    QString event;       // a saga-level event to record besides the attempt's
    QString notifyPool;  // tell idle workers of this pool that work is due now
};

// The saga tables. Writes are fenced: each takes the version the writer
// read and the lease it holds, and fails with ErrorCode::RowsMoved if either
// changed (another worker took the saga over, or an operator acted on it), so
// a worker that lost its saga can never record over the one that has it. An
// operator's write (owner "") needs the saga unleased, or its lease expired.
class SagaStore final {
public:
    explicit SagaStore(LibpqConnection &connection) : m_connection(connection) {}

    // Inserts a new saga and its steps in the caller's transaction, due now.
    Result<SagaRecord> insert(qint64 merchantId, const SagaDefinition &definition);
    Result<std::optional<SagaRecord>> load(qint64 id);
    // The saga's event log, oldest first, at most `limit` entries.
    Result<QList<SagaEvent>> events(qint64 sagaId, int limit = 2000);
    // merchantId 0 finds any merchant's saga (operators).
    Result<std::optional<SagaRecord>> findByPublicId(qint64 merchantId, const QString &publicId);

    struct Claim {
        qint64 sagaId = 0;
        QString previousOwner; // set when an expired lease was taken over
    };
    // Leases the saga in `status` that has been due longest, if any. A leased
    // saga is not due again until its lease expires.
    Result<std::optional<Claim>> claim(const QString &status, const QString &owner, int leaseMs);

    // Records that an attempt of `step` starts (its action, or its
    // compensation) and extends the lease to cover it; committed before the
    // participant is called, so a worker that dies mid-call leaves the
    // attempt on record.
    Status beginAttempt(SagaRecord &saga, int step, bool compensation, const QString &owner,
                        int leaseMs);
    // Records an attempt's end: the step's and the saga's change and the
    // event, in a transaction of its own or (`ownTransaction` false) the
    // caller's. `step` -1 changes the saga alone.
    Status record(SagaRecord &saga, const QString &owner, int step, const StepChange &stepChange,
                  const SagaChange &sagaChange, const QJsonObject &detail,
                  bool ownTransaction = true);

    // Gives the lease back without changing anything else (the saga is due
    // again at once).
    Status release(const SagaRecord &saga, const QString &owner);

    static QString dueChannel() { return QStringLiteral("keel_saga_due"); }

private:
    Status guardedUpdate(SagaRecord &saga, const QString &owner, const SagaChange &change);
    Status addEvent(qint64 sagaId, int step, const QString &event, const QJsonObject &detail);

    LibpqConnection &m_connection;
};

} // namespace keel
