#pragma once

#include "core/Result.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QSqlDatabase>
#include <QString>

namespace keel {

// SQLSTATEs the guarded-action rules (migration 0016) raise besides 42501.
namespace ActionErrorCode {
inline constexpr char NotFound[] = "KL404";
inline constexpr char Decided[] = "KL409"; // already decided or executed
inline constexpr char Expired[] = "KL410";
inline constexpr char Invalid[] = "KL422";
} // namespace ActionErrorCode

// One row an action will touch, at the version the proposer saw (its xmin):
// the action skips it if anything wrote it since.
struct ActionTarget {
    QString id;
    QString version;
};

struct ProposalRequest {
    QString kind;       // a row of keel.action_kinds, e.g. "outbox.resend"
    QString targetType; // the kind's target type, e.g. "outbox"
    QString summary;    // what the list shows: one id, or "12 parked messages"
    QList<ActionTarget> targets;
    QString reason;
    QString idempotencyKey; // one per dialog: proposing twice makes one proposal
    QJsonObject payload;    // what the kind needs besides its targets (an adjustment's postings)
};

// A proposal as the database holds it.
struct ActionRecord {
    qint64 id = 0;
    QString kind;
    QString targetType;
    QString summary;
    int targets = 0;
    QString targetsHash; // hex SHA-256 of the frozen target list
    // hex SHA-256 of the kind, frozen targets and payload: what an approver
    // is shown, names when approving, and what executes.
    QString contentHash;
    QString reason;
    QString status; // proposed, approved, rejected, queued, executed, failed, expired
    QString proposedBy;
    QDateTime proposedAt;
    QDateTime expiresAt;
    QString decidedBy; // who approved or rejected, if anyone did
    QString executedBy;
    QString outcome; // execute_action's summary (JSON), once executed
    QString payload; // what the kind carries besides its targets (JSON)
};

struct TargetOutcome {
    QString id;
    QString outcome; // resent or done (applied); changed, missing, not_allowed, busy, failed
    QString message; // why, for a target skipped by a worker
    QString newId;   // what the action created for it, if anything
};

struct ActionExecution {
    bool expired = false;  // the proposal ran out of time and did nothing
    bool queued = false;   // a keel worker does the work (saga actions); see find()
    bool replayed = false; // an earlier call executed it; this is its outcome
    int applied = 0;
    int skipped = 0;
    QList<TargetOutcome> targets;
};

// Guarded operator actions through the rules of migration 0016: propose,
// approve or reject, execute. The database decides who may do what and
// refuses the rest with an SQLSTATE (42501 for a proposer approving their
// own proposal, KL410 for an expired one, KL409 for a decided one, KL422 for
// a malformed proposal); the error carries the server's words.
class ActionDesk final {
public:
    explicit ActionDesk(QSqlDatabase db) : m_db(std::move(db)) {}

    Result<ActionRecord> propose(const ProposalRequest &request);
    // `seenHash` is the contentHash of the record the approver was shown; the
    // database refuses the approval if the proposal is not that content.
    Status approve(qint64 actionId, const QString &seenHash, const QString &comment = {});
    Status reject(qint64 actionId, const QString &comment);
    Result<ActionExecution> execute(qint64 actionId);

    enum class Queue {
        WaitingForMe, // others' open proposals (for an approver), my approved ones to execute
        All,
    };
    Result<QList<ActionRecord>> queue(Queue which, bool canApprove, int limit = 500);
    Result<ActionRecord> find(qint64 actionId);
    // Marks proposals past their time expired; how many.
    Result<int> expireOverdue();

    // A fresh idempotency key for one proposal dialog.
    static QString newIdempotencyKey();
    // The request's fields checked before anything is sent; the error names the field.
    static Status validate(const ProposalRequest &request);

private:
    Status decide(qint64 actionId, const char *decision, const QString &seenHash,
                  const QString &comment);

    QSqlDatabase m_db;
};

} // namespace keel
