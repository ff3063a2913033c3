#pragma once

#include "core/Result.h"
#include "core/read/CsvFile.h"
#include "core/read/HistoryQuery.h"

#include <QDateTime>
#include <QList>
#include <QSqlDatabase>
#include <QString>

#include <optional>

namespace keel {

struct SuspenseCaseFilter {
    enum class Status { Open, Resolved, All }; // Open: open or in review
    Status status = Status::Open;
    bool mineOnly = false;    // owned by the session user
    bool overdueOnly = false; // past ops_policy.case_deadline
    bool noticesOnly = false; // opened by a channel notice kept for a person
    // Finding one case: each narrows the queue when set.
    std::optional<qint64> amountMin; // minor units, inclusive; equal bounds: an exact amount
    std::optional<qint64> amountMax;
    QDateTime openedFrom; // inclusive; invalid: unbounded
    QDateTime openedTo;   // exclusive
    qint64 merchantId = 0;
    QString chargeId;   // ch_...
    QString sagaId;     // saga_...
    QString outTradeNo; // the merchant's order number of the case's charge
    int limit = 200;
    // The page after this case of the previous page (keyset paging on the
    // queue's order: opened, then id).
    struct Cursor {
        qint64 openedAtMicros = 0; // exact, so a case is never after itself
        qint64 id = 0;
    };
    std::optional<Cursor> after;
};

// One case of the settlement staff's queue.
struct SuspenseCaseRow {
    qint64 id = 0;
    QString sagaId;      // saga_..., empty if the case has none
    int sagaVersion = 0; // what a resolution proposed now freezes
    QString chargeId;    // ch_..., empty if none
    QString currency;    // empty for a case that holds no money
    int exponent = 2;
    qint64 amount = 0; // minor units
    QString status;    // open, in_review, resolved, written_off
    QString owner;
    QString reason;
    QDateTime openedAt;
    QDateTime deadline;
    bool overdue = false;
    QString version; // the case row's xmin, which a resolution proposed now freezes
    qint64 merchantId = 0;
    QString outTradeNo;
    // The channel notice that opened the case, if one did: what the channel
    // said, beside what keel has (`chargeId`, `chargeState`).
    QString notice;
    QString chargeState;
    // Its break bears on lines of a statement withdrawn since its day last
    // ran (migration 0048): not settled until a run has judged it again.
    bool awaitingRun = false;
    // The channel owes `amount` (migration 0050): a run parked money keel
    // booked that the channel does not show, debiting suspense.
    bool owed = false;
    qint64 openedAtMicros = 0;
    SuspenseCaseFilter::Cursor cursor() const { return {openedAtMicros, id}; }
};

// The suspense workbench's reads: the queue, oldest first, and one case's
// whole money trail in one list (the charge and its state events, ledger
// postings, outbox messages and notifications as the history browser reads
// them; the saga's events; the case's notes; every action proposed, decided
// and executed on the case or its saga).
class SuspenseQuery final {
public:
    SuspenseQuery() = delete;

    static Result<QList<SuspenseCaseRow>> queue(QSqlDatabase db, const SuspenseCaseFilter &filter);
    // `sources` as HistoryQuery::timelineSourcesFor() gives them for the login.
    static Result<QList<TimelineEntry>> trail(QSqlDatabase db, const SuspenseCaseRow &row,
                                              const QStringList &sources);
    // What an adjustment dialog offers for a case: the ledger accounts the
    // database lets its adjustment post to (the case merchant's, its charge's
    // channel clearing account, keel's fee and loss accounts; never the
    // suspense account, whose leg keel adds), and the suspense account's
    // balance now (minor units held).
    static Result<QStringList> adjustableAccounts(QSqlDatabase db, qint64 caseId);
    static Result<qint64> suspenseBalance(QSqlDatabase db, const QString &currency);
    // Every case the filter finds (its limit is the page size), oldest first,
    // with `filterText` at the top; times in ISO 8601 UTC, amounts in major
    // units. The caller records the export (ExportLog).
    static Result<ExportSummary> exportCsv(QSqlDatabase db, SuspenseCaseFilter filter,
                                           const QString &filterText, QIODevice &out);
};

} // namespace keel
