#pragma once

#include "core/Result.h"

#include <QDate>
#include <QDateTime>
#include <QList>
#include <QSqlDatabase>
#include <QString>

#include <array>
#include <optional>

namespace keel {

// An amount and the digits its currency writes after the point.
struct ReconMoney {
    QString currency;
    int exponent = 2;
    qint64 amount = 0;
};

// The latest run of one channel's day.
struct ReconRunRow {
    qint64 id = 0;
    QString channel;
    QDate date;
    qint64 lines = 0; // the channel's lines in the day
    int matched = 0;
    int breaks = 0;
    QDateTime runAt;
    QList<ReconMoney> difference; // what its open breaks leave unexplained, per currency
};

struct ReconBreakRow {
    qint64 id = 0;
    QString channel;
    QDate date;
    QString breakClass; // missing_at_keel, ...
    QString kind;       // payment, refund
    QString reference;
    ReconMoney channelAmount;
    qint64 keelAmount = 0; // in channelAmount's currency
    QString status;        // pending, new, persisting, accepted
    int ageDays = 0;
    qint64 caseId = 0; // 0: none opened yet
    QString caseStatus;
    QString version;         // the row version a resolution proposes against
    QDateTime acceptedUntil; // while accepted
    // Its statement's line was withdrawn (migration 0048): nothing may be
    // decided on it until a run of its day has judged it again.
    bool awaitingRun = false;
};

// Open breaks of one class by age: 0-1, 2-7, 8-30 and more than 30 days.
struct ReconAgeRow {
    QString breakClass;
    std::array<qint64, 4> byAge{};
};

struct ReconLineRow {
    qint64 statementId = 0;
    QString channelReference;
    ReconMoney amount;
    qint64 fee = 0;
    QDateTime occurredAt;
    QString paymentReference; // a refund line's charge, as the channel names it
};

// A statement as it was imported, and whether it was withdrawn.
struct ReconStatementRow {
    qint64 id = 0;
    QString channel;
    QString format;
    int lines = 0;
    QString sha256; // hex, of the file
    QString importedBy;
    QDateTime importedAt;
    QDateTime withdrawnAt; // invalid while it counts
    QString version;       // the row version a withdrawal proposes against
};

// One moment in a break's life: the runs that raised and judged it, what
// people proposed, decided and ran on it, its cases, its resolution.
struct ReconBreakEvent {
    QDateTime at;
    QString source; // run, action, case, resolved
    QString summary;
};

// A break's two sides: what the channel reported and what keel holds.
struct ReconBreakDetail {
    QList<ReconBreakEvent> timeline; // oldest first
    QList<ReconLineRow> lines;
    bool keelKnows = false;
    QString keelState; // a charge's state or a refund's status
    ReconMoney keelAmount;
    qint64 captured = 0; // a charge's
    qint64 refunded = 0;
    QDateTime createdAt;
};

// The settlement staff's read of reconciliation: runs, open breaks, their
// ages, and a break's two sides. Any role that reads the books reads these.
class ReconQuery final {
public:
    ReconQuery() = delete;

    static Result<QList<ReconRunRow>> runs(QSqlDatabase db, int limit);
    // Unresolved breaks, accepted ones too, oldest day first; a page of them
    // after `after` (a row of the previous page), by keyset.
    static Result<QList<ReconBreakRow>> openBreaks(QSqlDatabase db, int limit,
                                                   const std::optional<ReconBreakRow> &after = {});
    static Result<QList<ReconAgeRow>> ages(QSqlDatabase db);
    // The newest statements first.
    static Result<QList<ReconStatementRow>> statements(QSqlDatabase db, int limit);
    static Result<ReconBreakDetail> detail(QSqlDatabase db, const ReconBreakRow &found);
};

} // namespace keel
