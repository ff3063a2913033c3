#pragma once

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QMutex>
#include <QString>

#include <array>
#include <atomic>

namespace keel {

// In-process counters and latency histograms of one keel process, exposed in
// Prometheus text format. Replays create no rows, so only the processes know
// these numbers. Labels are fixed sets: never merchant or charge ids.
class Metrics final {
public:
    enum class Idempotency { New, Replayed, InFlight, Mismatch, Recovered, Count };
    enum class Endpoint {
        ChargesCreate,
        ChargesGet,
        ChargesCapture,
        RefundsCreate,
        RefundsGet,
        Health,
        Metrics,
        Other,
        Count
    };
    enum class Posting { Capture, Refund, Count };

    static Metrics &instance();

    void countIdempotency(Idempotency outcome);
    void observeRequest(Endpoint endpoint, int status, qint64 micros);
    // A state change of a payment, by the states' names. declareTransition
    // makes a whitelisted pair show in /metrics before it first happens.
    void countTransition(const QString &from, const QString &to);
    void declareTransition(const QString &from, const QString &to);
    // A housekeeping task (sweep, fold, reconcile, flush) that failed, by task.
    void countHousekeepingFailure(const QString &task);
    quint64 housekeepingFailures(const QString &task) const;
    void countPosting(Posting kind);
    // Money moved, per currency, for the dashboards' volume charts.
    void countVolume(Posting kind, const QString &currency, qint64 minorUnits);

    // Sagas: a saga reaching `status` (started, compensating, succeeded,
    // compensated, parked), by definition name; one step attempt, by
    // definition, step, operation (action/compensate) and verdict, with its
    // latency; a lease taken over from a worker that went silent; and how
    // many sagas are stuck now (a gauge the worker's housekeeping sets).
    void countSaga(const QString &definition, const QString &status);
    void observeSagaStep(const QString &definition, const QString &step, const QString &operation,
                         const QString &verdict, qint64 micros);
    void countLeaseTakeover();
    void setSagasStuck(qint64 count);
    // Suspense cases open past the policy's deadline (a gauge).
    void setSuspensePastDeadline(qint64 count);
    void setOldestInDoubtSeconds(qint64 seconds);
    quint64 sagaCount(const QString &definition, const QString &status) const;

    // The outbox relay: rows published, refused (failed) and parked; and its
    // state now (lag = age of the oldest unpublished row, backlog, parked).
    void countOutbox(const QString &result, qint64 count);
    void setOutboxState(qint64 lagMs, qint64 backlog, qint64 parked);
    quint64 outboxCount(const QString &result) const;

    // Merchant notifications: attempts delivered (2xx), failed (retried
    // later) and parked (out of retries).
    void countNotification(const QString &result);
    quint64 notificationCount(const QString &result) const;
    // Channel notifications coming in: accepted, or rejected and why
    // (malformed, outside_window, unknown_key, mismatch, replayed_nonce, ...).
    void countChannelNotification(const QString &channel, const QString &verdict);
    quint64 channelNotificationCount(const QString &channel, const QString &verdict) const;

    // Reconciliation now, as the worker last read it: what open breaks leave
    // unexplained per channel and currency, and per merchant and currency
    // (minor units), net and gross, and open breaks per channel and class.
    // Each call replaces the whole picture; keys are rendered label sets.
    struct ReconState {
        QMap<QByteArray, qint64> differenceByChannel;  // channel="..",currency=".."
        QMap<QByteArray, qint64> differenceByMerchant; // merchant="..",currency=".."
        QMap<QByteArray, qint64> openBreaks;           // channel="..",class=".."
        // Each break's difference counted whatever its sign: a break the
        // channel is short on never hides one where it holds more.
        QMap<QByteArray, qint64> grossByChannel;
        QMap<QByteArray, qint64> grossByMerchant;
        // What open suspense cases hold apart by direction, held or owed,
        // which the suspense account's balance nets:
        // currency="..",direction="held|owed".
        QMap<QByteArray, qint64> suspenseByDirection;
    };
    void setReconState(ReconState state);

    QByteArray prometheusText() const;

    // Every count also goes to the per-minute rollups (RollupBuffer) that the
    // console reads; names are "<family>.<label>..." such as
    // "idempotency.replayed" or "latency.charges_create".

    quint64 idempotencyCount(Idempotency outcome) const;
    // The latency histogram's bucket upper bounds, in microseconds.
    static QList<qint64> bucketBounds() { return {BucketMicros.cbegin(), BucketMicros.cend()}; }

private:
    Metrics() = default;
    QByteArray sagaAndOutboxText() const;
    QByteArray reconText() const;
    static constexpr std::array<qint64, 12> BucketMicros{
        1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000, 1000000, 2500000, 5000000};
    static constexpr int Endpoints = int(Endpoint::Count);
    // Counters with a label set only known at run time ("from=..,to=..").
    struct LabelledCounters {
        mutable QMutex mutex;
        QMap<QByteArray, quint64> counts; // rendered labels -> count
        void add(const QByteArray &labels, quint64 delta);
        quint64 value(const QByteArray &labels) const;
        QByteArray render(const char *name) const;
    };

    std::array<std::atomic<quint64>, int(Idempotency::Count)> m_idempotency{};
    std::array<std::array<std::atomic<quint64>, 3>, Endpoints>
        m_statusClasses{}; // 2xx/3xx, 4xx, 5xx
    std::array<std::array<std::atomic<quint64>, BucketMicros.size()>, Endpoints> m_buckets{};
    std::array<std::atomic<quint64>, Endpoints> m_count{};
    std::array<std::atomic<quint64>, Endpoints> m_sumMicros{};
    // Histograms with a label set only known at run time.
    struct LabelledHistograms {
        struct Series {
            std::array<quint64, BucketMicros.size()> buckets{};
            quint64 count = 0;
            quint64 sumMicros = 0;
        };
        mutable QMutex mutex;
        QMap<QByteArray, Series> series;
        void observe(const QByteArray &labels, qint64 micros);
        QByteArray render(const char *name) const;
    };
    LabelledCounters m_transitions;
    LabelledCounters m_sagas;
    LabelledCounters m_sagaAttempts;
    LabelledHistograms m_sagaStepLatency;
    std::atomic<quint64> m_leaseTakeovers{0};
    std::atomic<qint64> m_sagasStuck{0};
    std::atomic<qint64> m_suspensePastDeadline{0};
    std::atomic<qint64> m_oldestInDoubtSeconds{0};
    LabelledCounters m_outbox;
    LabelledCounters m_notifications;
    LabelledCounters m_channelNotifications;
    std::atomic<qint64> m_outboxLagMs{0};
    std::atomic<qint64> m_outboxBacklog{0};
    std::atomic<qint64> m_outboxParked{0};
    LabelledCounters m_housekeepingFailures;
    mutable QMutex m_reconMutex;
    ReconState m_recon;
    std::array<std::atomic<quint64>, int(Posting::Count)> m_postings{};
};

} // namespace keel
