#pragma once

#include "core/Result.h"

#include <QDateTime>
#include <QList>
#include <QSqlDatabase>
#include <QString>
#include <QStringList>
#include <QVariantList>

#include <functional>
#include <optional>

class QIODevice;

namespace keel {

struct SessionInfo;

// What an auditor searches payments by. Empty fields do not filter.
struct HistoryFilter {
    QString chargeId; // ch_...
    QString outTradeNo;
    qint64 merchantId = 0;
    std::optional<qint64> minAmount; // minor units
    std::optional<qint64> maxAmount;
    QString currency;
    QString state;
    QDateTime from; // created at or after
    QDateTime to;   // created before
};

struct HistoryRow {
    QString publicId;
    qint64 merchantId = 0;
    QString merchantName;
    QString outTradeNo;
    qint64 amount = 0;
    qint64 amountCaptured = 0;
    qint64 amountRefunded = 0;
    QString currency;
    int exponent = 2;
    QString state;
    QDateTime created;
};

// Where the next page starts: newest first, by (created_at, id).
struct HistoryCursor {
    QString createdAt; // as PostgreSQL printed it: exact to the microsecond
    qint64 id = 0;
};

struct HistoryPage {
    QList<HistoryRow> rows;
    std::optional<HistoryCursor> next;
};

struct TimelineEntry {
    QDateTime at;
    QString source; // idempotency, state, ledger, outbox, refund
    QString summary;
};

// The payment-history browser's reads. Pages use keyset pagination on the
// (created_at, id) indexes, so page 10,000 costs what page 1 costs.
class HistoryQuery final {
public:
    static Result<HistoryPage> page(QSqlDatabase db, const HistoryFilter &filter,
                                    const std::optional<HistoryCursor> &after, int limit);
    // The page statement with ? placeholders; `binds` receives their values
    // (the LIMIT comes last). For plan checks and for page().
    static QString pageSql(const HistoryFilter &filter, const std::optional<HistoryCursor> &after,
                           QVariantList *binds);
    // Everything that touched one charge, oldest first, from the given sources
    // (idempotency, refund, state, ledger, outbox).
    static Result<QList<TimelineEntry>> timeline(QSqlDatabase db, const QString &chargeId,
                                                 const QStringList &sources = timelineSources());
    static QStringList timelineSources();
    // The sources whose tables this session may read.
    static QStringList timelineSourcesFor(const SessionInfo &session);
    // Writes every matching payment as CSV, page by page. `progress` gets the
    // rows written so far and returns false to cancel; returns the rows written.
    static Result<qint64> exportCsv(QSqlDatabase db, const HistoryFilter &filter, QIODevice &out,
                                    const std::function<bool(qint64)> &progress);
    // One CSV line (RFC 4180 quoting), amounts in major units with the currency's exponent.
    static QString csvHeader();
    static QString csvLine(const HistoryRow &row);
    static QString formatAmount(qint64 minorUnits, int exponent);
};

} // namespace keel
