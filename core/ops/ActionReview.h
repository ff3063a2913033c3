#pragma once

#include "core/Result.h"
#include "core/ops/ActionDesk.h"

#include <QList>
#include <QSqlDatabase>
#include <QString>

namespace keel {

// One ledger line that executing an action would post, with the account's
// balance now and after (minor units, debit positive).
struct PostingPreview {
    QString account;
    qint64 amount = 0;
    qint64 balanceBefore = 0;
    qint64 balanceAfter = 0;
};

// Everything executing a proposal will do, as an approver is shown it: the
// frozen targets with the versions they must still have, and for a case
// resolution the postings it makes. `record.contentHash` is the hash of what
// is shown here; approving names it.
struct ActionReview {
    ActionRecord record;
    QList<ActionTarget> targets; // in the order they will run
    QString currency;            // the postings' currency, if any
    int exponent = 2;
    QList<PostingPreview> postings;
};

class ActionReviews final {
public:
    ActionReviews() = delete;
    static Result<ActionReview> load(QSqlDatabase db, qint64 actionId);
};

} // namespace keel
