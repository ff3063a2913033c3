#pragma once

#include "core/Result.h"
#include "core/db/ConnectionSettings.h"
#include "core/idempotency/IdempotencyStore.h"
#include "core/outbox/NotificationSender.h"
#include "core/payment/Channel.h"
#include "core/saga/SagaWorker.h"

#include <memory>

namespace keel {

class FailureLog;
class NotificationLoop;
class LibpqConnection;
class WakeupLoop;
class StripeReplies;

struct WorkerOptions {
    ConnectionSettings settings;
    ChannelFactory channel; // required: where the built-in payment steps go
    IdempotencyPolicy idempotency;
    SagaWorkerOptions saga;
    int reconcileGraceSeconds = 30;
    int notificationSenders = 2; // 0: this worker sends no merchant notifications
    int actionPollMs = 5000;     // queued guarded actions when no NOTIFY announces one
    NotificationOptions notifications;
};

// A running `keel worker`: the saga worker's pools, the merchant
// notification senders, the guarded actions people approved for it (run as
// soon as one is queued: NOTIFY keel_actions), plus housekeeping the owner
// drives by calling maintain() every few seconds (flushing rollups, the
// stuck-saga gauge, settling payments a crashed process left in flight).
class WorkerRuntime final {
public:
    static Result<std::unique_ptr<WorkerRuntime>> start(WorkerOptions options);
    ~WorkerRuntime();
    Q_DISABLE_COPY_MOVE(WorkerRuntime)

    void maintain();
    void stop();

private:
    WorkerRuntime();
    void note(const char *task, const Status &status);

    WorkerOptions m_options;
    PaymentContext m_context;
    std::unique_ptr<StripeReplies> m_replies;
    std::unique_ptr<SagaWorker> m_worker;
    std::unique_ptr<NotificationLoop> m_notifications;
    std::unique_ptr<WakeupLoop> m_actions;
    std::unique_ptr<LibpqConnection> m_housekeeping;
    std::unique_ptr<FailureLog> m_failures;
};

} // namespace keel
