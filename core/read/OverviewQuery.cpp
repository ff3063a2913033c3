#include "core/read/OverviewQuery.h"

#include "core/db/QtSqlConnections.h"
#include "core/metrics/Metrics.h"

#include <QSqlQuery>
#include <QVariant>

#include <algorithm>
#include <limits>
#include <map>

namespace keel {
namespace {

const char *const KeyedOutcomes[] = {"idempotency.new", "idempotency.replayed",
                                     "idempotency.in_flight_conflict",
                                     "idempotency.fingerprint_mismatch", "idempotency.recovered"};

// The bucket bound below `bound` in the histogram's fixed layout (0 for the first).
qint64 lowerBound(qint64 bound)
{
    qint64 lower = 0;
    for (const qint64 candidate : Metrics::bucketBounds()) {
        if (candidate >= bound)
            break;
        lower = candidate;
    }
    return lower;
}

// Like Prometheus' histogram_quantile: find the bucket holding the wanted
// rank and interpolate linearly inside it; the open top bucket yields its
// lower bound.
qint64 percentile(const std::map<qint64, qint64> &buckets, double share)
{
    qint64 total = 0;
    for (const auto &[bound, count] : buckets)
        total += count;
    if (total == 0)
        return 0;
    const double wanted = share * double(total);
    qint64 seen = 0;
    for (const auto &[bound, count] : buckets) {
        if (double(seen + count) >= wanted) {
            const qint64 lower = lowerBound(bound);
            if (bound == std::numeric_limits<qint64>::max())
                return lower;
            const double within = count > 0 ? (wanted - double(seen)) / double(count) : 1.0;
            return lower + qint64(within * double(bound - lower));
        }
        seen += count;
    }
    return buckets.rbegin()->first;
}

// Per-bucket p95 and the whole range's percentiles of one definition's steps.
OverviewData::StepLatency stepLatencyOf(const QList<std::map<qint64, qint64>> &perBucket)
{
    OverviewData::StepLatency latency;
    std::map<qint64, qint64> whole;
    for (const auto &buckets : perBucket) {
        latency.p95Micros << percentile(buckets, 0.95);
        for (const auto &[bound, count] : buckets)
            whole[bound] += count;
    }
    latency.p50 = percentile(whole, 0.50);
    latency.p95 = percentile(whole, 0.95);
    latency.p99 = percentile(whole, 0.99);
    return latency;
}

} // namespace

QList<qint64> OverviewData::series(const QString &metric) const
{
    return counts.value(metric, QList<qint64>(times.size(), 0));
}

QList<double> OverviewData::hitRate() const
{
    QList<double> rates;
    for (qsizetype i = 0; i < times.size(); ++i) {
        qint64 all = 0;
        for (const char *outcome : KeyedOutcomes)
            all += series(QLatin1String(outcome)).at(i);
        rates << (all == 0
                      ? -1.0
                      : double(series(QStringLiteral("idempotency.replayed")).at(i)) / double(all));
    }
    return rates;
}

QList<double> OverviewData::compensationRate() const
{
    const QList<qint64> started = series(QStringLiteral("saga.started"));
    const QList<qint64> compensating = series(QStringLiteral("saga.compensating"));
    QList<double> rates;
    for (qsizetype i = 0; i < times.size(); ++i)
        rates << (started.at(i) == 0 ? -1.0 : double(compensating.at(i)) / double(started.at(i)));
    return rates;
}

QList<double> OverviewData::conflictRate() const
{
    QList<double> rates;
    for (qsizetype i = 0; i < times.size(); ++i) {
        qint64 all = 0;
        for (const char *outcome : KeyedOutcomes)
            all += series(QLatin1String(outcome)).at(i);
        const qint64 conflicts = series(QStringLiteral("idempotency.in_flight_conflict")).at(i) +
                                 series(QStringLiteral("idempotency.fingerprint_mismatch")).at(i);
        rates << (all == 0 ? -1.0 : double(conflicts) / double(all));
    }
    return rates;
}

// The rollup families the Overview draws, one filter for both readings.
#define KEEL_OVERVIEW_METRICS                                                                      \
    "(metric LIKE 'idempotency.%' OR metric LIKE 'http.charges_create.%' "                         \
    " OR metric = 'latency.charges_create' OR metric LIKE 'volume.%' "                             \
    " OR metric LIKE 'transition.%' OR metric LIKE 'outbox.%' OR metric LIKE 'saga.%' "            \
    " OR metric LIKE 'saga\\_step\\_latency.%')"

const char *OverviewQuery::rangeSql()
{
    // Reads the range through metrics_minute_by_minute; rows are already rolled up per minute.
    return "SELECT (extract(epoch FROM minute)::bigint / ?) * ?, metric, le_micros, "
           "  sum(count)::bigint, sum(total)::bigint "
           "FROM keel.metrics_minute "
           "WHERE minute >= to_timestamp(?) AND minute < to_timestamp(?) "
           "  AND " KEEL_OVERVIEW_METRICS " "
           "GROUP BY 1, 2, 3";
}

const char *OverviewQuery::suspenseSql()
{
    // Summed per suspense account through ledger_entries_account, so the cost
    // follows the suspense account's entries, not the whole ledger's. Money
    // parked there is credited to it (Ledger::postSuspense): what it holds is
    // its credit balance, shown as a positive amount.
    return "SELECT a.currency, s.balance FROM keel.ledger_accounts a CROSS JOIN LATERAL ("
           "  SELECT -coalesce(sum(e.amount), 0)::bigint AS balance FROM keel.ledger_entries e "
           "  WHERE e.account_id = a.id) s "
           "WHERE a.kind = 'suspense' AND s.balance <> 0 ORDER BY a.currency";
}

const char *OverviewQuery::suspenseOwedSql()
{
    // Through suspense_cases_open: the open cases are few.
    return "SELECT currency, sum(amount)::bigint FROM keel.suspense_cases "
           "WHERE status IN ('open', 'in_review') AND direction = 'owed' "
           "GROUP BY currency ORDER BY currency";
}

const char *OverviewQuery::stateLevelsSql()
{
    // The totals as they stood at the last minute of each bucket, and the
    // newest recorded minute for the bucket still running: a few hundred key
    // lookups, however long the range.
    return "SELECT extract(epoch FROM minute)::bigint, state, payments "
           "FROM keel.payment_state_minute "
           "WHERE minute = ANY(ARRAY(SELECT generate_series(to_timestamp(?), to_timestamp(?), "
           "                                                make_interval(secs => ?))) "
           "  || (SELECT max(minute) FROM keel.payment_state_minute "
           "      WHERE minute >= to_timestamp(?)))";
}

const char *OverviewQuery::suspenseMovesSql()
{
    // Suspense postings per bucket, through ledger_entries_account: suspense
    // accounts move rarely, so this reads few rows whatever the ledger's size.
    return "SELECT a.currency, m.b, m.total FROM keel.ledger_accounts a CROSS JOIN LATERAL ("
           "  SELECT (extract(epoch FROM e.created_at)::bigint / ?) * ? AS b, "
           "    -sum(e.amount)::bigint AS total FROM keel.ledger_entries e "
           "  WHERE e.account_id = a.id AND e.created_at >= to_timestamp(?) GROUP BY 1) m "
           "WHERE a.kind = 'suspense'";
}

const char *OverviewQuery::suspenseOwedMovesSql()
{
    // The suspense entries of owed cases' postings, found from the cases (few)
    // through the transactions' indexes: each case's opening, and what later
    // named it (a return, a write-off, a charge to the merchant). Owed money
    // is a debit of suspense, so the entries sum to what is owed.
    return "SELECT k.currency, CASE WHEN e.created_at >= to_timestamp(?) "
           "  THEN (extract(epoch FROM e.created_at)::bigint / ?) * ? ELSE 0 END AS b, "
           "  sum(e.amount)::bigint "
           "FROM keel.suspense_cases k CROSS JOIN LATERAL ("
           "  SELECT x.id FROM keel.ledger_transactions x WHERE x.id = k.ledger_transaction_id "
           "  UNION SELECT x.id FROM keel.ledger_transactions x WHERE x.suspense_case_id = k.id) t "
           "JOIN keel.ledger_entries e ON e.transaction_id = t.id "
           "JOIN keel.ledger_accounts a ON a.id = e.account_id AND a.kind = 'suspense' "
           "WHERE k.direction = 'owed' GROUP BY 1, 2";
}

const char *OverviewQuery::unreconciledSql()
{
    // The breaks unexplained at some time in the range: open ones through
    // recon_breaks_open, and those resolved since its start.
    return "SELECT b.currency, extract(epoch FROM r.run_at)::bigint, "
           "  coalesce(extract(epoch FROM b.resolved_at)::bigint, 0), "
           "  b.channel_amount - b.keel_amount "
           "FROM keel.recon_breaks b JOIN keel.recon_runs r ON r.id = b.first_run_id "
           "WHERE b.status <> 'accepted' AND b.class NOT IN ('fee_variance', 'currency_mismatch') "
           "  AND r.run_at < to_timestamp(?) "
           "  AND (b.status <> 'resolved' OR b.resolved_at >= to_timestamp(?))";
}

const char *OverviewQuery::inFlightSql()
{
    return "SELECT state, count(*) FROM keel.payment_state "
           "WHERE state IN ('Authorizing', 'Capturing', 'Refunding') GROUP BY state ORDER BY state";
}

qint64 OverviewQuery::stepFor(qint64 rangeSeconds)
{
    const qint64 step = (rangeSeconds + 239) / 240;
    // Buckets of ten minutes or more are whole ten-minute slots, so the long
    // ranges can read the folded slots (see slotRangeSql).
    const qint64 unit = step > 300 ? SlotSeconds : 60;
    return std::max<qint64>(60, (step + unit - 1) / unit * unit);
}

const char *OverviewQuery::slotRangeSql()
{
    // Folded ten-minute slots up to the fold's horizon, the minutes after it.
    return "SELECT (extract(epoch FROM r.at)::bigint / ?) * ?, r.metric, r.le_micros, "
           "  sum(r.count)::bigint, sum(r.total)::bigint "
           "FROM (SELECT slot AS at, metric, le_micros, count, total "
           "      FROM keel.metrics_ten_minutes "
           "      WHERE slot >= to_timestamp(?) "
           "        AND slot < (SELECT folded_through FROM keel.metrics_ten_minutes_fold) "
           "        AND " KEEL_OVERVIEW_METRICS " "
           "      UNION ALL "
           "      SELECT minute, metric, le_micros, count, total FROM keel.metrics_minute "
           "      WHERE minute >= greatest(to_timestamp(?), "
           "          (SELECT folded_through FROM keel.metrics_ten_minutes_fold)) "
           "        AND minute < to_timestamp(?) "
           "        AND " KEEL_OVERVIEW_METRICS ") r "
           "GROUP BY 1, 2, 3";
}

namespace {

// The buckets of the range, and each bucket's index for a bucket start.
void layOutBuckets(OverviewData &data, qint64 rangeSeconds, qint64 nowEpoch)
{
    data.stepSeconds = OverviewQuery::stepFor(rangeSeconds);
    data.toEpoch = (nowEpoch / data.stepSeconds + 1) * data.stepSeconds;
    data.fromEpoch =
        data.toEpoch - (rangeSeconds + data.stepSeconds - 1) / data.stepSeconds * data.stepSeconds;
    for (qint64 t = data.fromEpoch; t < data.toEpoch; t += data.stepSeconds)
        data.times << t;
}

qsizetype slotOf(const OverviewData &data, qint64 bucketStart)
{
    const qsizetype i = qsizetype((bucketStart - data.fromEpoch) / data.stepSeconds);
    return i < 0 || i >= data.times.size() ? -1 : i;
}

// Reads the range through metrics_minute_by_minute (rows already rolled up per
// minute), or for buckets of whole slots mostly through the folded slots.
Status loadRollups(QSqlQuery &query, OverviewData &data)
{
    if (data.stepSeconds % OverviewQuery::SlotSeconds == 0) {
        query.prepare(QString::fromLatin1(OverviewQuery::slotRangeSql()));
        for (const qint64 bind :
             {data.stepSeconds, data.stepSeconds, data.fromEpoch, data.fromEpoch, data.toEpoch})
            query.addBindValue(bind);
    } else {
        query.prepare(QString::fromLatin1(OverviewQuery::rangeSql()));
        for (const qint64 bind : {data.stepSeconds, data.stepSeconds, data.fromEpoch, data.toEpoch})
            query.addBindValue(bind);
    }
    if (Status status = QtSqlConnections::exec(query); !status)
        return status;
    QList<std::map<qint64, qint64>> latency(data.times.size());
    QHash<QString, QList<std::map<qint64, qint64>>> stepLatency;
    QHash<QString, QList<std::pair<qint64, qint64>>> levels; // reports, sum
    while (query.next()) {
        const qsizetype i = slotOf(data, query.value(0).toLongLong());
        if (i < 0)
            continue;
        const QString metric = query.value(1).toString();
        const qint64 count = query.value(3).toLongLong();
        const qint64 total = query.value(4).toLongLong();
        if (metric == QLatin1String("latency.charges_create")) {
            latency[i][query.value(2).toLongLong()] += count;
        } else if (metric.startsWith(QLatin1String("saga_step_latency."))) {
            auto &perBucket = stepLatency[metric.section(u'.', 1)];
            perBucket.resize(data.times.size());
            perBucket[i][query.value(2).toLongLong()] += count;
        } else if (metric == QLatin1String("outbox.lag_ms") ||
                   metric == QLatin1String("outbox.backlog")) {
            auto &perBucket = levels[metric];
            perBucket.resize(data.times.size());
            perBucket[i].first += count;
            perBucket[i].second += total;
        } else if (metric.startsWith(QLatin1String("volume."))) {
            auto &perCurrency =
                metric.startsWith(QLatin1String("volume.capture.")) ? data.captured : data.refunded;
            QList<qint64> &values = perCurrency[metric.section(u'.', 2)];
            values.resize(data.times.size(), 0);
            values[i] += total;
        } else {
            QList<qint64> &values = data.counts[metric];
            values.resize(data.times.size(), 0);
            values[i] += count;
        }
    }
    for (const auto &buckets : std::as_const(latency)) {
        data.p50Micros << percentile(buckets, 0.50);
        data.p95Micros << percentile(buckets, 0.95);
        data.p99Micros << percentile(buckets, 0.99);
    }
    for (auto level = levels.cbegin(); level != levels.cend(); ++level) {
        QList<qint64> &averages = data.levels[level.key()];
        for (const auto &[reports, sum] : level.value())
            averages << (reports == 0 ? -1 : sum / reports);
    }
    for (auto step = stepLatency.cbegin(); step != stepLatency.cend(); ++step)
        data.stepLatency.insert(step.key(), stepLatencyOf(step.value()));
    return {};
}

// The suspense balance now, and at each bucket's end: today's, less what was
// posted after it.
Status loadSuspense(QSqlQuery &query, OverviewData &data)
{
    if (Status status =
            QtSqlConnections::exec(query, QString::fromLatin1(OverviewQuery::suspenseSql()));
        !status)
        return status;
    while (query.next())
        data.suspenseBalances.append({query.value(0).toString(), query.value(1).toLongLong()});
    query.prepare(QString::fromLatin1(OverviewQuery::suspenseMovesSql()));
    for (const qint64 bind : {data.stepSeconds, data.stepSeconds, data.fromEpoch})
        query.addBindValue(bind);
    if (Status status = QtSqlConnections::exec(query); !status)
        return status;
    QHash<QString, QList<qint64>> moves;
    while (query.next()) {
        const qsizetype i = slotOf(data, query.value(1).toLongLong());
        if (i < 0)
            continue;
        QList<qint64> &perBucket = moves[query.value(0).toString()];
        perBucket.resize(data.times.size(), 0);
        perBucket[i] += query.value(2).toLongLong();
    }
    QHash<QString, qint64> now;
    for (const auto &[currency, balance] : std::as_const(data.suspenseBalances))
        now.insert(currency, balance);
    QStringList currencies = now.keys() + moves.keys();
    currencies.removeDuplicates();
    for (const QString &currency : std::as_const(currencies)) {
        const QList<qint64> perBucket = moves.value(currency, QList<qint64>(data.times.size(), 0));
        QList<qint64> levels(data.times.size(), 0);
        qint64 level = now.value(currency, 0);
        for (qsizetype i = data.times.size() - 1; i >= 0; --i) {
            levels[i] = level;
            level -= perBucket.at(i);
        }
        data.suspenseLevels.insert(currency, levels);
    }
    return {};
}

// What owed cases left in suspense at each bucket's end: what came before the
// range, then each bucket's moves in turn.
Status loadOwedLevels(QSqlQuery &query, OverviewData &data)
{
    query.prepare(QString::fromLatin1(OverviewQuery::suspenseOwedMovesSql()));
    for (const qint64 bind : {data.fromEpoch, data.stepSeconds, data.stepSeconds})
        query.addBindValue(bind);
    if (Status status = QtSqlConnections::exec(query); !status)
        return status;
    QHash<QString, qint64> before;
    QHash<QString, QList<qint64>> moves;
    while (query.next()) {
        const QString currency = query.value(0).toString();
        QList<qint64> &perBucket = moves[currency];
        perBucket.resize(data.times.size(), 0);
        const qint64 bucket = query.value(1).toLongLong();
        if (bucket == 0) {
            before[currency] += query.value(2).toLongLong();
            continue;
        }
        if (const qsizetype i = slotOf(data, bucket); i >= 0)
            perBucket[i] += query.value(2).toLongLong();
    }
    for (auto it = moves.cbegin(); it != moves.cend(); ++it) {
        QList<qint64> levels(data.times.size(), 0);
        qint64 level = before.value(it.key(), 0);
        for (qsizetype i = 0; i < levels.size(); ++i)
            levels[i] = level += it.value().at(i);
        data.suspenseOwedLevels.insert(it.key(), levels);
    }
    return {};
}

// Each break counts from its first run until its resolution, at every bucket
// end in between.
Status loadUnreconciled(QSqlQuery &query, OverviewData &data)
{
    query.prepare(QString::fromLatin1(OverviewQuery::unreconciledSql()));
    for (const qint64 bind : {data.toEpoch, data.fromEpoch})
        query.addBindValue(bind);
    if (Status status = QtSqlConnections::exec(query); !status)
        return status;
    while (query.next()) {
        const qint64 seen = query.value(1).toLongLong();
        const qint64 resolved = query.value(2).toLongLong();
        const qint64 difference = query.value(3).toLongLong();
        QList<qint64> &levels = data.unreconciled[query.value(0).toString()];
        levels.resize(data.times.size(), 0);
        for (qsizetype i = 0; i < data.times.size(); ++i) {
            const qint64 end = data.times.at(i) + data.stepSeconds;
            if (seen < end && (resolved == 0 || resolved >= end))
                levels[i] += difference;
        }
    }
    return {};
}

Status loadStateLevels(QSqlQuery &query, OverviewData &data)
{
    query.prepare(QString::fromLatin1(OverviewQuery::stateLevelsSql()));
    for (const qint64 bind : {data.fromEpoch + data.stepSeconds - 60, data.toEpoch - 60,
                              data.stepSeconds, data.fromEpoch})
        query.addBindValue(bind);
    if (Status status = QtSqlConnections::exec(query); !status)
        return status;
    while (query.next()) {
        const qsizetype i = slotOf(data, query.value(0).toLongLong());
        if (i < 0)
            continue;
        QList<qint64> &levels = data.stateLevels[query.value(1).toString()];
        levels.resize(data.times.size(), -1);
        levels[i] = query.value(2).toLongLong();
    }
    return {};
}

Status loadPairs(QSqlQuery &query, const QString &sql, QList<std::pair<QString, qint64>> &into)
{
    if (Status status = QtSqlConnections::exec(query, sql); !status)
        return status;
    while (query.next())
        into.append({query.value(0).toString(), query.value(1).toLongLong()});
    return {};
}

} // namespace

Result<OverviewData> OverviewQuery::load(QSqlDatabase db, qint64 rangeSeconds, qint64 nowEpoch,
                                         OverviewScope scope)
{
    OverviewData data;
    layOutBuckets(data, rangeSeconds, nowEpoch);
    QSqlQuery query(db);
    query.setForwardOnly(true);
    if (Status status = loadRollups(query, data); !status)
        return status.error();
    // "Now" figures: one index-backed read each.
    data.suspenseShown = scope.suspense;
    if (scope.suspense)
        if (Status status = loadSuspense(query, data); !status)
            return status.error();
    if (scope.suspense && scope.owedCases) {
        if (Status status = QtSqlConnections::exec(query, QString::fromLatin1(suspenseOwedSql()));
            !status)
            return status.error();
        while (query.next())
            data.suspenseOwed.append({query.value(0).toString(), query.value(1).toLongLong()});
        if (Status status = loadOwedLevels(query, data); !status)
            return status.error();
    }
    if (scope.stateLevels)
        if (Status status = loadStateLevels(query, data); !status)
            return status.error();
    data.reconShown = scope.reconciliation;
    if (scope.reconciliation)
        if (Status status = loadUnreconciled(query, data); !status)
            return status.error();
    data.inFlightShown = scope.inFlight;
    if (scope.inFlight)
        if (Status status = loadPairs(query, QString::fromLatin1(inFlightSql()), data.inFlight);
            !status)
            return status.error();
    QList<std::pair<QString, qint64>> exponents;
    if (Status status = loadPairs(
            query, QStringLiteral("SELECT code, exponent FROM keel.currencies"), exponents);
        !status)
        return status.error();
    for (const auto &[code, exponent] : std::as_const(exponents))
        data.exponents.insert(code, int(exponent));
    return data;
}

} // namespace keel
