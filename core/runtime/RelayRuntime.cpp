#include "core/runtime/RelayRuntime.h"

#include "core/ServiceLog.h"
#include "core/db/LibpqConnection.h"
#include "core/db/SchemaCheck.h"
#include "core/metrics/RollupBuffer.h"
#include "core/outbox/AmqpPublisher.h"
#include "core/runtime/FailureLog.h"
#include "core/runtime/KeptConnection.h"
#include "core/runtime/NotifyWakeup.h"

#include <QCoreApplication>
#include <QSysInfo>

#include <algorithm>
#include <chrono>

namespace keel {
namespace {

// A reconnection attempt is cheap and every second of it is outbox lag once
// the broker is back, so the pauses stop growing at 5 s.
constexpr int MaxPauseMs = 5000;

QString instanceName()
{
    return QStringLiteral("%1:%2-relay")
        .arg(QSysInfo::machineHostName())
        .arg(QCoreApplication::applicationPid());
}

} // namespace

RelayRuntime::RelayRuntime() = default;

Result<std::unique_ptr<RelayRuntime>> RelayRuntime::start(RelayRuntimeOptions options)
{
    if (!options.settings.has(QStringLiteral("application_name")))
        options.settings.set(QStringLiteral("application_name"), QStringLiteral("keel-relay"));
    Result<LibpqConnection> housekeeping = LibpqConnection::open(options.settings);
    if (!housekeeping)
        return housekeeping.error();
    // Publishing rows of a schema this binary does not know could send
    // events in a shape their consumers were never told about.
    if (Status schema = checkSchemaIsCurrent(*housekeeping); !schema)
        return schema.error();
    std::unique_ptr<RelayRuntime> runtime(new RelayRuntime);
    runtime->m_options = options;
    runtime->m_housekeeping = std::make_unique<LibpqConnection>(std::move(housekeeping).value());
    runtime->m_failures = std::make_unique<FailureLog>();
    runtime->m_wakeup =
        std::make_unique<NotifyWakeup>(options.settings, QStringList{OutboxRelay::channel()});
    RelayRuntime *self = runtime.get();
    runtime->m_thread = std::thread([self] { self->run(); });
    return runtime;
}

RelayRuntime::~RelayRuntime()
{
    stop();
}

void RelayRuntime::run()
{
    KeptConnection connection(m_options.settings);
    AmqpPublisher publisher(m_options.relay.broker, m_options.relay.exchange);
    publisher.setOtherNodes(m_options.relay.otherNodes);
    if (!m_options.catchAllQueue.isEmpty())
        publisher.setCatchAllQueue(m_options.catchAllQueue, 100000, m_options.catchAllBindings);
    int pauseMs = 0;
    while (!m_wakeup->stopping()) {
        const Result<LibpqConnection *> session = connection.get();
        Result<RelayPass> pass = session
                                     ? OutboxRelay(**session, publisher, m_options.relay).runOnce()
                                     : Result<RelayPass>(session.error());
        const bool failed = !pass || pass->brokerDown();
        if (failed != m_brokerDown.exchange(failed))
            failed ? ServiceLog::warning(
                         QStringLiteral("keel relay: cannot publish: %1; "
                                        "retrying with growing pauses")
                             .arg(pass ? pass->brokerLost->message : pass.error().message))
                   : ServiceLog::info(QStringLiteral("keel relay: publishing again"));
        if (failed) {
            pauseMs = std::min(MaxPauseMs, std::max(250, pauseMs * 2));
            m_wakeup->sleep(pauseMs);
            continue;
        }
        pauseMs = 0;
        if (pass->published == 0)
            m_wakeup->sleep(m_options.pollMs);
    }
}

void RelayRuntime::maintain()
{
    const Status connected = m_housekeeping->ensureHealthy();
    m_failures->note(QStringLiteral("reconnect"), connected);
    if (!connected)
        return;
    AmqpPublisher unused(m_options.relay.broker, m_options.relay.exchange);
    OutboxRelay relay(*m_housekeeping, unused, m_options.relay);
    m_failures->note(QStringLiteral("outbox_measure"), relay.measure());
    m_failures->note(QStringLiteral("outbox_sweep"),
                     statusOf(relay.sweepPublished(m_options.keepPublishedSeconds)));
    m_failures->note(QStringLiteral("rollup_flush"),
                     RollupBuffer::instance().flush(*m_housekeeping, instanceName()));
}

void RelayRuntime::stop()
{
    if (!m_wakeup || !m_wakeup->stop())
        return;
    if (m_thread.joinable())
        m_thread.join();
    if (m_housekeeping && m_housekeeping->healthy())
        (void)RollupBuffer::instance().flush(*m_housekeeping, instanceName());
}

} // namespace keel
