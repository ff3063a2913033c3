#include "core/runtime/WorkerRuntime.h"

#include "core/api/StripeReplies.h"
#include "core/db/LibpqConnection.h"
#include "core/metrics/Metrics.h"
#include "core/metrics/RollupBuffer.h"
#include "core/ops/QueuedActions.h"
#include "core/payment/Reconciler.h"
#include "core/runtime/FailureLog.h"
#include "core/runtime/NotificationLoop.h"
#include "core/runtime/ProcessSetup.h"
#include "core/runtime/WakeupLoop.h"
#include "core/saga/StuckSagas.h"

namespace keel {

WorkerRuntime::WorkerRuntime() = default;

Result<std::unique_ptr<WorkerRuntime>> WorkerRuntime::start(WorkerOptions options)
{
    Result<ProcessSetup> setup = ProcessSetup::prepare(
        options.settings, options.channel, options.idempotency, QStringLiteral("keel-worker"));
    if (!setup)
        return setup.error();
    std::unique_ptr<WorkerRuntime> runtime(new WorkerRuntime);
    runtime->m_options = options;
    runtime->m_context = setup->context;
    runtime->m_housekeeping = std::move(setup->housekeeping);
    runtime->m_failures = std::make_unique<FailureLog>();
    // The stored replies of the payment steps' keys are rendered as the
    // gateway would render them, so a merchant replaying one sees the same.
    runtime->m_replies = std::make_unique<StripeReplies>();
    if (runtime->m_options.saga.owner.isEmpty())
        runtime->m_options.saga.owner = runtime->m_context.instance;
    runtime->m_worker = std::make_unique<SagaWorker>(runtime->m_context, *runtime->m_replies,
                                                     runtime->m_options.saga);
    runtime->m_worker->start();
    if (options.notificationSenders > 0)
        runtime->m_notifications = NotificationLoop::start(
            {options.settings, options.notifications, options.notificationSenders});
    runtime->m_actions = WakeupLoop::start({options.settings,
                                            {QueuedActions::channel()},
                                            1,
                                            options.actionPollMs,
                                            QStringLiteral("guarded_actions"),
                                            [](LibpqConnection &connection) -> Result<bool> {
                                                Result<int> finished =
                                                    QueuedActions(connection).runOnce();
                                                if (!finished)
                                                    return finished.error();
                                                return *finished > 0;
                                            }});
    return runtime;
}

WorkerRuntime::~WorkerRuntime()
{
    stop();
}

void WorkerRuntime::note(const char *task, const Status &status)
{
    m_failures->note(QString::fromLatin1(task), status);
}

void WorkerRuntime::maintain()
{
    const Status connected = m_housekeeping->ensureHealthy();
    note("reconnect", connected);
    if (!connected)
        return;
    note("rollup_flush", RollupBuffer::instance().flush(*m_housekeeping, m_context.instance));
    Result<qint64> stuck = stuckSagas::count(*m_housekeeping);
    if (stuck)
        Metrics::instance().setSagasStuck(*stuck);
    note("stuck_count", statusOf(stuck));
    note("reconcile", statusOf(Reconciler(m_context, *m_housekeeping, *m_replies)
                                   .runOnce(m_options.reconcileGraceSeconds)));
}

void WorkerRuntime::stop()
{
    if (m_actions) {
        m_actions->stop();
        m_actions.reset();
    }
    if (m_notifications) {
        m_notifications->stop();
        m_notifications.reset();
    }
    if (m_worker) {
        m_worker->stop();
        m_worker.reset();
        if (m_housekeeping && m_housekeeping->ensureHealthy())
            (void)RollupBuffer::instance().flush(*m_housekeeping, m_context.instance);
    }
}

} // namespace keel
