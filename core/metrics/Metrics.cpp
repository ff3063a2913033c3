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

QByteArray Metrics::prometheusText() const
{
    QByteArray out;
    out +=
        "# HELP keel_idempotency_requests_total Requests carrying an Idempotency-Key, by outcome.\n"
        "# TYPE keel_idempotency_requests_total counter\n";
    for (size_t i = 0; i < IdempotencyNames.size(); ++i)
        out += QByteArray("keel_idempotency_requests_total{outcome=\"") + IdempotencyNames[i] +
               "\"} " + QByteArray::number(m_idempotency[i].load()) + '\n';

    out += "# HELP keel_http_requests_total HTTP requests answered, by endpoint and status class.\n"
           "# TYPE keel_http_requests_total counter\n";
    for (size_t e = 0; e < EndpointNames.size(); ++e)
        for (size_t c = 0; c < ClassNames.size(); ++c)
            out += QByteArray("keel_http_requests_total{endpoint=\"") + EndpointNames[e] +
                   "\",code=\"" + ClassNames[c] + "\"} " +
                   QByteArray::number(m_statusClasses[e][c].load()) + '\n';

    out += "# HELP keel_http_request_duration_seconds Time to answer an HTTP request.\n"
           "# TYPE keel_http_request_duration_seconds histogram\n";
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

    out +=
        "# HELP keel_payment_transitions_total Payment state transitions, by from and to state.\n"
        "# TYPE keel_payment_transitions_total counter\n";
    out += m_transitions.render("keel_payment_transitions_total");

    out += "# HELP keel_ledger_postings_total Balanced ledger postings written, by kind.\n"
           "# TYPE keel_ledger_postings_total counter\n";
    for (size_t k = 0; k < PostingNames.size(); ++k)
        out += QByteArray("keel_ledger_postings_total{kind=\"") + PostingNames[k] + "\"} " +
               QByteArray::number(m_postings[k].load()) + '\n';

    out += "# HELP keel_housekeeping_failures_total Housekeeping passes that failed, by task.\n"
           "# TYPE keel_housekeeping_failures_total counter\n";
    out += m_housekeepingFailures.render("keel_housekeeping_failures_total");
    return out;
}

} // namespace keel
