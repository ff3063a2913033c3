#pragma once

#include "core/Result.h"
#include "core/saga/StepAnswer.h"

#include <QJsonObject>
#include <QString>

namespace keel {

class HostLimiter;
class LibpqConnection;
class ReplyRenderer;
struct PaymentContext;
struct SagaRecord;
struct StepRecord;

// Which work a worker thread takes: forward steps of running sagas, or the
// compensation of compensating ones. The pools never share threads, so a
// storm of one kind cannot starve the other.
enum class SagaPool { Forward, Compensate };

QString poolStatus(SagaPool pool);
QString poolName(SagaPool pool);

// Works one leased saga as far as it can go now: runs its due step, records
// the attempt before and after, and moves on to the next step while steps
// succeed. Stops when the saga has to wait (a retry's backoff, a participant
// that said "ongoing", a busy host), moves to the other pool, ends, or was
// taken from it (a lost lease or an operator's action: the fenced writes
// fail and the runner lets go).
class SagaRunner final {
public:
    // `leaseMs` is the worker's lease: the margin each attempt's lease
    // gives beyond the attempt's own limit.
    SagaRunner(const PaymentContext &context, LibpqConnection &connection,
               const ReplyRenderer &replies, HostLimiter &hosts, QString owner, int leaseMs);

    Status run(qint64 sagaId, SagaPool pool);

private:
    enum class Next { Continue, Stop };
    Result<Next> forward(SagaRecord &saga);
    Result<Next> compensate(SagaRecord &saga);
    Result<Next> finishCompensation(SagaRecord &saga);
    Result<Next> recordForward(SagaRecord &saga, const StepRecord &step, const StepAnswer &answer,
                               qint64 elapsedMs);
    // The last round failed: the saga parks with a suspense case.
    Result<Next> park(SagaRecord &saga, const StepRecord &step, const StepAnswer &answer,
                      const QString &stepStatus, const QJsonObject &detail);
    // A park refused while a channel operation on the charge is in flight:
    // the saga waits and tries its last round again.
    Result<Next> deferPark(SagaRecord &saga, const StepRecord &step, const QString &why);
    Result<Next> recordCompensation(SagaRecord &saga, const StepRecord &step,
                                    const StepAnswer &answer, qint64 elapsedMs);
    // Runs one attempt of the step's action or compensation, recorded before
    // and after; Stop without an attempt when the participant's host is at
    // its limit (the saga is due again shortly).
    Result<Next> attempt(SagaRecord &saga, int step, bool compensation);
    StepAnswer execute(const SagaRecord &saga, const StepRecord &step, bool compensation);
    int leaseMs(const StepRecord &step, bool compensation) const;

    const PaymentContext &m_context;
    LibpqConnection &m_connection;
    const ReplyRenderer &m_replies;
    HostLimiter &m_hosts;
    QString m_owner;
    int m_leaseMs;
};

} // namespace keel
