#include "core/metrics/Metrics.h"

#include "core/metrics/RollupBuffer.h"

#include <limits>

namespace keel {
namespace {

constexpr std::array<const char *, 5> IdempotencyNames{"new", "replayed", "in_flight_conflict",
                                                       "fingerprint_mismatch", "recovered"};
constexpr std::array<const char *, 8> EndpointNames{
    "charges_create", "charges_get", "charges_capture", "refunds_create",
    "refunds_get",    "healthz",     "metrics",         "other"};
constexpr std::array<const char *, 3> ClassNames{"2xx", "4xx", "5xx"};
constexpr std::array<const char *, 2> PostingNames{"capture", "refund"};

QByteArray seconds(qint64 micros)
{
    return QByteArray::number(double(micros) / 1e6, 'g', 10);
}

// The HELP and TYPE lines that open a metric.
QByteArray opening(const char *name, const char *type, const char *help)
{
    return QByteArray("# HELP ") + name + ' ' + help + "\n# TYPE " + name + ' ' + type + '\n';
}

// A metric with one sample and no labels.
QByteArray single(const char *name, const char *type, const char *help, const QByteArray &value)
{
    return opening(name, type, help) + name + ' ' + value + '\n';
}

} // namespace

Metrics &Metrics::instance()
{
    static Metrics metrics;
    return metrics;
}

void Metrics::countIdempotency(Idempotency outcome)
{
    m_idempotency[size_t(outcome)].fetch_add(1, std::memory_order_relaxed);
    RollupBuffer::instance().add(QStringLiteral("idempotency.") +
                                 QLatin1String(IdempotencyNames[size_t(outcome)]));
}

quint64 Metrics::idempotencyCount(Idempotency outcome) const
{
    return m_idempotency[size_t(outcome)].load(std::memory_order_relaxed);
}

void Metrics::observeRequest(Endpoint endpoint, int status, qint64 micros)
{
    const size_t e = size_t(endpoint);
    m_statusClasses[e][status >= 500   ? 2
                       : status >= 400 ? 1
                                       : 0]
        .fetch_add(1, std::memory_order_relaxed);
    for (size_t b = 0; b < BucketMicros.size(); ++b)
        if (micros <= BucketMicros[b])
            m_buckets[e][b].fetch_add(1, std::memory_order_relaxed);
    m_count[e].fetch_add(1, std::memory_order_relaxed);
    m_sumMicros[e].fetch_add(quint64(std::max<qint64>(0, micros)), std::memory_order_relaxed);

    RollupBuffer &rollups = RollupBuffer::instance();
    const QString name = QLatin1String(EndpointNames[e]);
    rollups.add(QStringLiteral("http.") + name + u'.' +
                QLatin1String(ClassNames[status >= 500   ? 2
                                         : status >= 400 ? 1
                                                         : 0]));
    // Per-minute histograms keep the bucket a request fell in (not cumulative).
    qint64 bound = 0;
    for (const qint64 candidate : BucketMicros) {
        if (micros <= candidate) {
            bound = candidate;
            break;
        }
    }
    rollups.add(QStringLiteral("latency.") + name, 1, std::max<qint64>(0, micros),
                bound == 0 ? std::numeric_limits<qint64>::max() : bound);
}

namespace {

QByteArray transitionLabels(const QString &from, const QString &to)
{
    return "from=\"" + from.toLatin1() + "\",to=\"" + to.toLatin1() + '"';
}

} // namespace

void Metrics::LabelledCounters::add(const QByteArray &labels, quint64 delta)
{
    const QMutexLocker lock(&mutex);
    counts[labels] += delta;
}

quint64 Metrics::LabelledCounters::value(const QByteArray &labels) const
{
    const QMutexLocker lock(&mutex);
    return counts.value(labels);
}

QByteArray Metrics::LabelledCounters::render(const char *name) const
{
    const QMutexLocker lock(&mutex);
    QByteArray out;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        out += QByteArray(name) + '{' + it.key() + "} " + QByteArray::number(it.value()) + '\n';
    return out;
}

void Metrics::countTransition(const QString &from, const QString &to)
{
    m_transitions.add(transitionLabels(from, to), 1);
    RollupBuffer::instance().add(QStringLiteral("transition.") + from + u'.' + to);
}

void Metrics::declareTransition(const QString &from, const QString &to)
{
    m_transitions.add(transitionLabels(from, to), 0);
}

void Metrics::countHousekeepingFailure(const QString &task)
{
    m_housekeepingFailures.add("task=\"" + task.toLatin1() + '"', 1);
    RollupBuffer::instance().add(QStringLiteral("housekeeping_failure.") + task);
}

quint64 Metrics::housekeepingFailures(const QString &task) const
{
    return m_housekeepingFailures.value("task=\"" + task.toLatin1() + '"');
}

void Metrics::countPosting(Posting kind)
{
    m_postings[size_t(kind)].fetch_add(1, std::memory_order_relaxed);
    RollupBuffer::instance().add(QStringLiteral("posting.") +
                                 QLatin1String(PostingNames[size_t(kind)]));
}

void Metrics::countVolume(Posting kind, const QString &currency, qint64 minorUnits)
{
    RollupBuffer::instance().add(QStringLiteral("volume.") +
                                     QLatin1String(PostingNames[size_t(kind)]) + u'.' + currency,
                                 1, minorUnits);
}

namespace {

qint64 bucketOf(qint64 micros, const std::array<qint64, 12> &bounds)
{
    for (const qint64 bound : bounds)
        if (micros <= bound)
            return bound;
    return std::numeric_limits<qint64>::max();
}

QByteArray label(const char *name, const QString &value)
{
    return QByteArray(name) + "=\"" + value.toLatin1() + '"';
}

} // namespace

void Metrics::LabelledHistograms::observe(const QByteArray &labels, qint64 micros)
{
    const QMutexLocker lock(&mutex);
    Series &one = series[labels];
    for (size_t b = 0; b < BucketMicros.size(); ++b)
        if (micros <= BucketMicros[b])
            ++one.buckets[b];
    ++one.count;
    one.sumMicros += quint64(std::max<qint64>(0, micros));
}

QByteArray Metrics::LabelledHistograms::render(const char *name) const
{
    const QMutexLocker lock(&mutex);
    QByteArray out;
    for (auto it = series.cbegin(); it != series.cend(); ++it) {
        for (size_t b = 0; b < BucketMicros.size(); ++b)
            out += QByteArray(name) + "_bucket{" + it.key() + ",le=\"" + seconds(BucketMicros[b]) +
                   "\"} " + QByteArray::number(it->buckets[b]) + '\n';
        out += QByteArray(name) + "_bucket{" + it.key() + ",le=\"+Inf\"} " +
               QByteArray::number(it->count) + '\n';
        out += QByteArray(name) + "_sum{" + it.key() + "} " + seconds(qint64(it->sumMicros)) + '\n';
        out +=
            QByteArray(name) + "_count{" + it.key() + "} " + QByteArray::number(it->count) + '\n';
    }
    return out;
}

void Metrics::countSaga(const QString &definition, const QString &status)
{
    m_sagas.add(label("definition", definition) + ',' + label("status", status), 1);
    RollupBuffer::instance().add(QStringLiteral("saga.") + status);
}

quint64 Metrics::sagaCount(const QString &definition, const QString &status) const
{
    return m_sagas.value(label("definition", definition) + ',' + label("status", status));
}

void Metrics::observeSagaStep(const QString &definition, const QString &step,
                              const QString &operation, const QString &verdict, qint64 micros)
{
    const QByteArray where = label("definition", definition) + ',' + label("step", step);
    m_sagaAttempts.add(where + ',' + label("op", operation) + ',' + label("verdict", verdict), 1);
    m_sagaStepLatency.observe(where + ',' + label("op", operation), micros);
    RollupBuffer &rollups = RollupBuffer::instance();
    rollups.add(QStringLiteral("saga_attempt.") + operation + u'.' + verdict);
    rollups.add(QStringLiteral("saga_step_latency.") + definition, 1, std::max<qint64>(0, micros),
                bucketOf(micros, BucketMicros));
}

void Metrics::countLeaseTakeover()
{
    m_leaseTakeovers.fetch_add(1, std::memory_order_relaxed);
    RollupBuffer::instance().add(QStringLiteral("saga.lease_takeover"));
}

void Metrics::setSuspensePastDeadline(qint64 count)
{
    m_suspensePastDeadline.store(count, std::memory_order_relaxed);
}

void Metrics::setOldestInDoubtSeconds(qint64 seconds)
{
    m_oldestInDoubtSeconds.store(seconds, std::memory_order_relaxed);
}

void Metrics::setSagasStuck(qint64 count)
{
    m_sagasStuck.store(count, std::memory_order_relaxed);
}

void Metrics::countOutbox(const QString &result, qint64 count)
{
    m_outbox.add(label("result", result), quint64(count));
    RollupBuffer::instance().add(QStringLiteral("outbox.") + result, count);
}

quint64 Metrics::outboxCount(const QString &result) const
{
    return m_outbox.value(label("result", result));
}

void Metrics::countNotification(const QString &result)
{
    m_notifications.add(label("result", result), 1);
    RollupBuffer::instance().add(QStringLiteral("notifications.") + result, 1);
}

quint64 Metrics::notificationCount(const QString &result) const
{
    return m_notifications.value(label("result", result));
}

void Metrics::countChannelNotification(const QString &channel, const QString &verdict)
{
    m_channelNotifications.add(label("channel", channel) + ',' + label("verdict", verdict), 1);
}

quint64 Metrics::channelNotificationCount(const QString &channel, const QString &verdict) const
{
    return m_channelNotifications.value(label("channel", channel) + ',' +
                                        label("verdict", verdict));
}

void Metrics::setReconState(ReconState state)
{
    const QMutexLocker lock(&m_reconMutex);
    m_recon = std::move(state);
}

void Metrics::setOutboxState(qint64 lagMs, qint64 backlog, qint64 parked)
{
    m_outboxLagMs.store(lagMs, std::memory_order_relaxed);
    m_outboxBacklog.store(backlog, std::memory_order_relaxed);
    m_outboxParked.store(parked, std::memory_order_relaxed);
    // The minute's average lag and the last backlog, for the dashboards.
    RollupBuffer::instance().add(QStringLiteral("outbox.lag_ms"), 1, lagMs);
    RollupBuffer::instance().add(QStringLiteral("outbox.backlog"), 1, backlog);
}

QByteArray Metrics::prometheusText() const
{
    QByteArray out;
    out += opening("keel_idempotency_requests_total", "counter",
                   "Requests carrying an Idempotency-Key, by outcome.");
    for (size_t i = 0; i < IdempotencyNames.size(); ++i)
        out += QByteArray("keel_idempotency_requests_total{outcome=\"") + IdempotencyNames[i] +
               "\"} " + QByteArray::number(m_idempotency[i].load()) + '\n';

    out += opening("keel_http_requests_total", "counter",
                   "HTTP requests answered, by endpoint and status class.");
    for (size_t e = 0; e < EndpointNames.size(); ++e)
        for (size_t c = 0; c < ClassNames.size(); ++c)
            out += QByteArray("keel_http_requests_total{endpoint=\"") + EndpointNames[e] +
                   "\",code=\"" + ClassNames[c] + "\"} " +
                   QByteArray::number(m_statusClasses[e][c].load()) + '\n';

    out += opening("keel_http_request_duration_seconds", "histogram",
                   "Time to answer an HTTP request.");
    for (size_t e = 0; e < EndpointNames.size(); ++e) {
        const QByteArray label = QByteArray("endpoint=\"") + EndpointNames[e] + '"';
        for (size_t b = 0; b < BucketMicros.size(); ++b)
            out += "keel_http_request_duration_seconds_bucket{" + label + ",le=\"" +
                   seconds(BucketMicros[b]) + "\"} " + QByteArray::number(m_buckets[e][b].load()) +
                   '\n';
        out += "keel_http_request_duration_seconds_bucket{" + label + ",le=\"+Inf\"} " +
               QByteArray::number(m_count[e].load()) + '\n';
        out += "keel_http_request_duration_seconds_sum{" + label + "} " +
               seconds(qint64(m_sumMicros[e].load())) + '\n';
        out += "keel_http_request_duration_seconds_count{" + label + "} " +
               QByteArray::number(m_count[e].load()) + '\n';
    }

    out += opening("keel_payment_transitions_total", "counter",
                   "Payment state transitions, by from and to state.");
    out += m_transitions.render("keel_payment_transitions_total");

    out += opening("keel_ledger_postings_total", "counter",
                   "Balanced ledger postings written, by kind.");
    for (size_t k = 0; k < PostingNames.size(); ++k)
        out += QByteArray("keel_ledger_postings_total{kind=\"") + PostingNames[k] + "\"} " +
               QByteArray::number(m_postings[k].load()) + '\n';

    out += opening("keel_housekeeping_failures_total", "counter",
                   "Housekeeping passes that failed, by task.");
    out += m_housekeepingFailures.render("keel_housekeeping_failures_total");

    out += sagaAndOutboxText();
    return out;
}

QByteArray Metrics::sagaAndOutboxText() const
{
    QByteArray out;
    out += opening("keel_saga_transitions_total", "counter",
                   "Sagas reaching a status, by definition.");
    out += m_sagas.render("keel_saga_transitions_total");
    out += opening("keel_saga_step_attempts_total", "counter",
                   "Saga step attempts, by definition, step, operation and verdict.");
    out += m_sagaAttempts.render("keel_saga_step_attempts_total");
    out +=
        opening("keel_saga_step_duration_seconds", "histogram", "Time one saga step attempt took.");
    out += m_sagaStepLatency.render("keel_saga_step_duration_seconds");
    out += single("keel_saga_lease_takeovers_total", "counter",
                  "Sagas taken over from a worker whose lease expired.",
                  QByteArray::number(m_leaseTakeovers.load()));
    out += single("keel_sagas_stuck", "gauge",
                  "Sagas stuck now (non-terminal past their definition's threshold, or a step past "
                  "its attempts).",
                  QByteArray::number(m_sagasStuck.load()));
    out += single("keel_suspense_cases_past_deadline", "gauge",
                  "Suspense cases open or in review past the policy's deadline.",
                  QByteArray::number(m_suspensePastDeadline.load()));
    out += single("keel_payments_in_doubt_oldest_seconds", "gauge",
                  "How long the oldest charge or refund has waited for the channel's answer "
                  "(0: none waits).",
                  QByteArray::number(m_oldestInDoubtSeconds.load()));
    out += opening("keel_outbox_messages_total", "counter",
                   "Outbox rows the relay published, had refused, or parked.");
    out += m_outbox.render("keel_outbox_messages_total");
    out += single("keel_outbox_lag_seconds", "gauge", "Age of the oldest unpublished outbox row.",
                  seconds(m_outboxLagMs.load() * 1000));
    out += single("keel_outbox_backlog", "gauge", "Outbox rows waiting to be published.",
                  QByteArray::number(m_outboxBacklog.load()));
    out += single("keel_outbox_parked", "gauge", "Outbox rows set aside after failing too often.",
                  QByteArray::number(m_outboxParked.load()));
    out += opening("keel_notifications_total", "counter",
                   "Merchant notification attempts: delivered, failed (retried later) or parked "
                   "(out of retries).");
    out += m_notifications.render("keel_notifications_total");
    out += opening("keel_channel_notifications_total", "counter",
                   "Channel notifications received, by channel and verdict (accepted, or why they "
                   "were rejected).");
    out += m_channelNotifications.render("keel_channel_notifications_total");
    out += reconText();
    return out;
}

QByteArray Metrics::reconText() const
{
    const QMutexLocker lock(&m_reconMutex);
    const auto family = [](const char *name, const QMap<QByteArray, qint64> &values) {
        QByteArray out;
        for (auto it = values.cbegin(); it != values.cend(); ++it)
            out += QByteArray(name) + '{' + it.key() + "} " + QByteArray::number(it.value()) + '\n';
        return out;
    };
    const struct {
        const char *name;
        const char *help;
        const QMap<QByteArray, qint64> &values;
    } gauges[] = {
        {"keel_recon_difference",
         "What open reconciliation breaks leave unexplained, in the currency's minor units: the "
         "channel's amount less keel's.",
         m_recon.differenceByChannel},
        {"keel_recon_merchant_difference",
         "The same per merchant, for breaks keel can attribute to one.",
         m_recon.differenceByMerchant},
        {"keel_recon_gross_difference",
         "What open reconciliation breaks leave unexplained, each break's difference counted "
         "whatever its sign, in the currency's minor units.",
         m_recon.grossByChannel},
        {"keel_recon_merchant_gross_difference",
         "The same per merchant, for breaks keel can attribute to one.", m_recon.grossByMerchant},
        {"keel_recon_breaks", "Open reconciliation breaks, by class.", m_recon.openBreaks},
        {"keel_suspense_open_amount",
         "What open suspense cases hold, in the currency's minor units, by direction: held "
         "(money keel holds beyond its books) and owed (money keel booked that the channel "
         "does not show). The suspense account's balance nets one against the other.",
         m_recon.suspenseByDirection},
    };
    QByteArray out;
    for (const auto &gauge : gauges)
        out += opening(gauge.name, "gauge", gauge.help) + family(gauge.name, gauge.values);
    return out;
}

} // namespace keel
