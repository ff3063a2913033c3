#include "core/http/GatewayRuntime.h"

#include "core/db/Database.h"
#include "core/db/Migrator.h"
#include "core/db/PgSession.h"
#include "core/http/GatewayApi.h"
#include "core/metrics/PaymentStateFold.h"
#include "core/metrics/RollupBuffer.h"
#include "core/payment/Reconciler.h"

#include <QCoreApplication>
#include <QSysInfo>

namespace keel {
namespace {

Status checkSchema(const ConnectionSettings &settings)
{
    Result<QList<Migration>> migrations = MigrationSource::load();
    if (!migrations)
        return migrations.error();
    Status result;
    {
        Result<QSqlDatabase> db = Database::connect(settings, QStringLiteral("keel-schema-check"));
        if (!db)
            return db.error();
        result = Migrator(*db, *migrations).checkCurrent();
    }
    Database::closeThreadConnections();
    return result;
}

} // namespace

Result<std::unique_ptr<GatewayRuntime>> GatewayRuntime::start(GatewayOptions options)
{
    if (Status schema = checkSchema(options.settings); !schema)
        return schema.error();
    Result<PgSession> session = PgSession::open(options.settings);
    if (!session)
        return session.error();
    Result<CurrencyTable> currencies = CurrencyTable::load(*session);
    if (!currencies)
        return currencies.error();

    std::unique_ptr<GatewayRuntime> runtime(new GatewayRuntime);
    runtime->m_options = options;
    runtime->m_housekeeping = std::make_unique<PgSession>(std::move(session).value());

    GatewayContext context;
    context.settings = options.settings;
    if (!context.settings.has(QStringLiteral("application_name")))
        context.settings.set(QStringLiteral("application_name"), QStringLiteral("keel-gateway"));
    // The simulated network gets connections of its own: it stands for a
    // remote system and must never run inside one of the gateway's transactions.
    ConnectionSettings channelSettings = options.settings;
    channelSettings.set(QStringLiteral("application_name"), QStringLiteral("keel-sim-channel"));
    context.channel = std::make_shared<SimulatedChannel>(channelSettings, options.channel);
    context.currencies = *currencies;
    context.idempotency = options.idempotency;
    context.instance = QStringLiteral("%1:%2")
                           .arg(QSysInfo::machineHostName())
                           .arg(QCoreApplication::applicationPid());
    runtime->m_api = std::make_unique<GatewayApi>(context);

    GatewayApi *api = runtime->m_api.get();
    runtime->m_server = std::make_unique<HttpServer>(
        options.http, [api](const HttpRequest &request) { return api->handle(request); });
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
    return QStringLiteral("http://%1:%2").arg(m_options.http.host).arg(port());
}

void GatewayRuntime::maintain()
{
    if (!m_housekeeping->healthy() && !m_housekeeping->reset())
        return;
    (void)flushMetrics();
    (void)RollupBuffer::sweep(*m_housekeeping, 8, 1000);
    (void)PaymentStateFold::run(*m_housekeeping);
    (void)Reconciler(m_api->context(), *m_housekeeping).runOnce(m_options.reconcileGraceSeconds);
    IdempotencyStore store(*m_housekeeping, m_options.idempotency, m_api->context().instance);
    for (int round = 0; round < 20; ++round) {
        Result<int> swept = store.sweepExpired(500);
        if (!swept || *swept < 500)
            break;
    }
}

Status GatewayRuntime::flushMetrics()
{
    if (!m_housekeeping->healthy() && !m_housekeeping->reset())
        return makeError(ErrorKind::Connection, QStringLiteral("no database connection"));
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
