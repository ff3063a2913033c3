#pragma once

#include "core/payment/PaymentContext.h"
#include "core/saga/HostLimiter.h"
#include "core/saga/SagaRunner.h"

#include <QString>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace keel {

class ChangeListener;
class ReplyRenderer;

struct SagaWorkerOptions {
    int forwardThreads = 4;
    int compensateThreads = 2;
    int perHostLimit = 4; // calls in flight to one participant host, per process
    int pollMs = 1000;    // the fallback when no notification arrives
    // How long a claim holds a saga before its first attempt, and the margin
    // each attempt's lease adds to the attempt's own limit.
    int leaseMs = 30000;
    QString owner; // names this process in leases
};

// Runs sagas: two pools of threads, one claiming forward work and one
// compensation, each thread with its own database connection. Claims use
// leases (FOR UPDATE SKIP LOCKED), so any number of workers in any number of
// processes share the work, and a dead worker's sagas are taken over once its
// leases expire. Threads wake on NOTIFY keel_saga_due and poll as a fallback.
class SagaWorker final {
public:
    SagaWorker(PaymentContext context, const ReplyRenderer &replies, SagaWorkerOptions options);
    ~SagaWorker();
    Q_DISABLE_COPY_MOVE(SagaWorker)

    void start();
    // Lets every thread finish the attempt it is in, then joins them.
    void stop();

private:
    void work(SagaPool pool, int thread);
    // Sleeps up to pollMs, or until work for `pool` is announced or stop().
    void idle(SagaPool pool);
    void wake(const QString &pool);

    PaymentContext m_context;
    const ReplyRenderer &m_replies;
    SagaWorkerOptions m_options;
    HostLimiter m_hosts;
    std::unique_ptr<ChangeListener> m_listener;
    std::vector<std::thread> m_threads;
    std::mutex m_mutex;
    std::condition_variable m_wakeup;
    quint64 m_announced[2] = {0, 0}; // per pool: bumped by each notification
    std::atomic<bool> m_stopping{false};
};

} // namespace keel
