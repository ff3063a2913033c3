#include "core/runtime/GatewayRuntime.h"

#include "core/api/GatewayApi.h"
#include "core/db/LibpqConnection.h"
#include "core/metrics/PaymentStateFold.h"
#include "core/metrics/RollupBuffer.h"
#include "core/payment/Reconciler.h"
#include "core/recon/ReconGauges.h"
#include "core/runtime/DatabaseGauges.h"
#include "core/runtime/FailureLog.h"
#include "core/runtime/ProcessSetup.h"

namespace keel {

Result<std::unique_ptr<GatewayRuntime>> GatewayRuntime::start(GatewayOptions options)
{
    Result<ProcessSetup> setup = ProcessSetup::prepare(
        options.settings, options.channel, options.idempotency, QStringLiteral("keel-gateway"));
    if (!setup)
        return setup.error();
    std::unique_ptr<GatewayRuntime> runtime(new GatewayRuntime);
    runtime->m_options = options;
    runtime->m_failures = std::make_unique<FailureLog>();
    runtime->m_housekeeping = std::move(setup->housekeeping);
    runtime->m_api = std::make_unique<GatewayApi>(setup->context, options.channelKeys);

    runtime->m_server = std::make_unique<HttpServer>(options.http, *runtime->m_api);
    if (Status started = runtime->m_server->start(); !started)
        return started.error();
    return runtime;
}

GatewayRuntime::~GatewayRuntime()
{
    stop();
}

int GatewayRuntime::port() const
{
    return m_server ? m_server->port() : 0;
}

QString GatewayRuntime::url() const
{
    return QStringLiteral("%1://%2:%3")
        .arg(m_options.http.tlsCertificateFile.isEmpty() ? QStringLiteral("http")
                                                         : QStringLiteral("https"),
             m_options.http.host)
        .arg(port());
}

void GatewayRuntime::note(const char *task, const Status &status)
{
    m_failures->note(QString::fromLatin1(task), status);
}

void GatewayRuntime::maintain()
{
    const Status connected = m_housekeeping->ensureHealthy();
    note("reconnect", connected);
    if (!connected)
        return;
    note("rollup_flush", flushMetrics());
    note("rollup_sweep", statusOf(RollupBuffer::sweep(*m_housekeeping, 8, 1000)));
    note("rollup_slot_fold", RollupBuffer::foldSlots(*m_housekeeping));
    note("state_fold", statusOf(PaymentStateFold::run(*m_housekeeping)));
    // /metrics is the gateway's: its reconciliation gauges are read here.
    note("recon_gauges", refreshReconGauges(*m_housekeeping));
    note("database_gauges", refreshDatabaseGauges(*m_housekeeping));
    Result<Reconciler::Report> reconciled =
        Reconciler(m_api->context(), *m_housekeeping, m_api->replies())
            .runOnce(m_options.reconcileGraceSeconds);
    note("reconcile", statusOf(reconciled));
    IdempotencyStore store(*m_housekeeping, m_options.idempotency, m_api->context().instance);
    Status swept;
    for (int round = 0; round < 20; ++round) {
        Result<int> batch = store.sweepExpired(500);
        if (!batch)
            swept = batch.error();
        if (!batch || *batch < 500)
            break;
    }
    note("idempotency_sweep", swept);
}

Status GatewayRuntime::flushMetrics()
{
    if (Status connected = m_housekeeping->ensureHealthy(); !connected)
        return connected;
    return RollupBuffer::instance().flush(*m_housekeeping, m_api->context().instance);
}

void GatewayRuntime::stop()
{
    if (m_server) {
        m_server->stop();
        m_server.reset();
        (void)flushMetrics(); // what the last requests counted
    }
}

} // namespace keel
