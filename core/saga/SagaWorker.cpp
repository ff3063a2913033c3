#include "core/saga/SagaWorker.h"

#include "core/ServiceLog.h"
#include "core/db/ChangeListener.h"
#include "core/db/LibpqConnection.h"
#include "core/db/ThreadConnections.h"
#include "core/metrics/Metrics.h"
#include "core/saga/SagaStore.h"

#include <chrono>

namespace keel {

SagaWorker::SagaWorker(PaymentContext context, const ReplyRenderer &replies,
                       SagaWorkerOptions options)
    : m_context(std::move(context)), m_replies(replies), m_options(std::move(options)),
      m_hosts(m_options.perHostLimit)
{}

SagaWorker::~SagaWorker()
{
    stop();
}

void SagaWorker::start()
{
    m_stopping = false;
    ChangeListener::Callbacks callbacks;
    callbacks.notified = [this](const QString &, const QString &payload) {
        wake(payload);
    };
    callbacks.stateChanged = [this](bool listening, const QString &) {
        if (listening) { // anything announced while the link was down is found now
            wake(poolName(SagaPool::Forward));
            wake(poolName(SagaPool::Compensate));
        }
    };
    m_listener = std::make_unique<ChangeListener>(
        m_context.settings, QStringList{SagaStore::dueChannel()}, std::move(callbacks));
    m_listener->start();
    for (int i = 0; i < m_options.forwardThreads; ++i)
        m_threads.emplace_back([this, i] { work(SagaPool::Forward, i); });
    for (int i = 0; i < m_options.compensateThreads; ++i)
        m_threads.emplace_back([this, i] { work(SagaPool::Compensate, i); });
}

void SagaWorker::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wakeup.notify_all();
    for (std::thread &thread : m_threads)
        thread.join();
    m_threads.clear();
    if (m_listener)
        m_listener->stop();
    m_listener.reset();
}

void SagaWorker::wake(const QString &pool)
{
    {
        std::lock_guard lock(m_mutex);
        ++m_announced[pool == poolName(SagaPool::Compensate) ? 1 : 0];
    }
    m_wakeup.notify_all();
}

void SagaWorker::idle(SagaPool pool)
{
    std::unique_lock lock(m_mutex);
    const quint64 seen = m_announced[int(pool)];
    m_wakeup.wait_for(lock, std::chrono::milliseconds(m_options.pollMs),
                      [&] { return m_stopping || m_announced[int(pool)] != seen; });
}

void SagaWorker::work(SagaPool pool, int thread)
{
    const QString owner =
        QStringLiteral("%1/%2%3").arg(m_options.owner, poolName(pool).left(1)).arg(thread);
    while (!m_stopping) {
        Result<LibpqConnection *> connection = ThreadConnections::get(m_context.settings);
        if (!connection) {
            idle(pool);
            continue;
        }
        Result<std::optional<SagaStore::Claim>> claim =
            SagaStore(**connection).claim(poolStatus(pool), owner, m_options.leaseMs);
        if (!claim || !claim->has_value()) {
            idle(pool);
            continue;
        }
        if (!(*claim)->previousOwner.isEmpty())
            Metrics::instance().countLeaseTakeover();
        SagaRunner runner(m_context, **connection, m_replies, m_hosts, owner, m_options.leaseMs);
        if (Status ran = runner.run((*claim)->sagaId, pool);
            !ran && !ran.error().is(ErrorCode::RowsMoved))
            ServiceLog::warning(QStringLiteral("keel worker: saga %1 left to its lease: %2")
                                    .arg((*claim)->sagaId)
                                    .arg(ran.error().message));
    }
}

} // namespace keel
