#pragma once

#include "core/Result.h"

#include <QHash>
#include <QList>
#include <QMap>
#include <QSqlDatabase>
#include <QString>

#include <utility>

namespace keel {

// What the console's Overview shows for a time range: per-bucket series from
// the rollups, plus a few "now" figures read through small indexes.
struct OverviewData {
    qint64 fromEpoch = 0;
    qint64 toEpoch = 0;
    qint64 stepSeconds = 60;
    QList<qint64> times; // bucket starts, seconds since the epoch

    // metric -> per-bucket count (aligned with times): idempotency.*, http.charges_create.*,
    // transition.*
    QHash<QString, QList<qint64>> counts;
    // currency -> per-bucket minor units captured / refunded
    QHash<QString, QList<qint64>> captured;
    QHash<QString, QList<qint64>> refunded;
    // state -> payments in that state at the end of each bucket (-1: no figure),
    // from the folded totals (keel.payment_state_minute)
    QHash<QString, QList<qint64>> stateLevels;
    // POST /v1/charges latency per bucket, in microseconds (0 where no requests)
    QList<qint64> p50Micros, p95Micros, p99Micros;
    // Figures the relay reports as levels (outbox.lag_ms, outbox.backlog): the
    // average of the reports in each bucket (-1 where there were none).
    QHash<QString, QList<qint64>> levels;
    // Saga step latency by definition: p95 per bucket (0 where no attempts)
    // and the percentiles over the whole range, in microseconds.
    struct StepLatency {
        QList<qint64> p95Micros;
        qint64 p50 = 0, p95 = 0, p99 = 0;
    };
    QMap<QString, StepLatency> stepLatency;

    bool suspenseShown = false; // false when the session may not read the ledger
    bool inFlightShown = false;
    QList<std::pair<QString, qint64>> suspenseBalances; // currency -> minor units, non-zero now
    // currency -> what open cases say the channels owe (migration 0050),
    // netted in the balance above; non-zero only
    QList<std::pair<QString, qint64>> suspenseOwed;
    // currency -> suspense balance at the end of each bucket (minor units), for
    // currencies with a balance now or suspense postings in the range
    QHash<QString, QList<qint64>> suspenseLevels;
    // currency -> what owed cases left in suspense at the end of each bucket
    // (minor units, positive), netted in suspenseLevels, for currencies whose
    // owed cases moved money at any time
    QHash<QString, QList<qint64>> suspenseOwedLevels;
    // currency -> what reconciliation breaks left unexplained at the end of
    // each bucket (the channel's side less keel's, minor units): each break
    // from the run that first found it until it was resolved. Breaks a person
    // accepted, and fee and currency differences, are not sums of money owed.
    bool reconShown = false;
    QHash<QString, QList<qint64>> unreconciled;
    QList<std::pair<QString, qint64>> inFlight; // Authorizing/Capturing/Refunding -> payments
    QHash<QString, int> exponents;              // currency -> minor-unit exponent

    QList<qint64> series(const QString &metric) const;
    // Share of keyed requests answered by replay, and by 409/422, per bucket
    // (negative where there were none).
    QList<double> hitRate() const;
    QList<double> conflictRate() const;
    // Sagas that turned to compensation per saga started, per bucket
    // (negative where none started).
    QList<double> compensationRate() const;
};

// Which "now" figures to read: a role without the grants (keel_sre has no
// ledger access) gets the rest of the Overview instead of an error.
struct OverviewScope {
    bool suspense = true;
    bool inFlight = true;
    bool stateLevels = true;
    bool reconciliation = true;
    bool owedCases = true; // suspense_cases: what the channels owe, apart
};

class OverviewQuery final {
public:
    // Buckets sized so that any range has at most about 240 points.
    static qint64 stepFor(qint64 rangeSeconds);
    static Result<OverviewData> load(QSqlDatabase db, qint64 rangeSeconds, qint64 nowEpoch,
                                     OverviewScope scope = {});
    // The width of a folded rollup slot (metrics_ten_minutes).
    static constexpr qint64 SlotSeconds = 600;
    // The statements, for plan checks.
    static const char *rangeSql(); // binds: step, step, from epoch, to epoch
    // For buckets of whole slots. Binds: step, step, from epoch, from epoch, to epoch.
    static const char *slotRangeSql();
    static const char *suspenseSql();
    static const char *suspenseOwedSql();
    static const char *suspenseMovesSql(); // binds: step, step, from epoch
    // Bucket 0 gathers what came before the range. Binds: from epoch, step, step.
    static const char *suspenseOwedMovesSql();
    static const char *inFlightSql();
    static const char *unreconciledSql(); // binds: to epoch, from epoch
    static const char *stateLevelsSql();  // binds: first bucket end, last bucket end, step, from
};

} // namespace keel
