#include "DemoTraffic.h"

#include "core/db/LibpqConnection.h"
#include "core/db/QtSqlConnections.h"
#include "core/money/Currency.h"
#include "core/ops/ActionDesk.h"
#include "core/read/OutboxQuery.h"
#include "core/recon/ChannelContract.h"
#include "core/recon/ReconRun.h"
#include "core/recon/StatementStore.h"
#include "core/reference/CurrencyStore.h"
#include "core/statement/StatementReader.h"
#include "devkit/sim/SimStatement.h"
#include "devkit/stack/DevStack.h"

#include <chrono>

namespace keel {
namespace {

// Once notifications have parked, the demo's login proposes resending them,
// so the Approvals view has something waiting for a second person. One
// proposal per demo: its idempotency key is fixed.
bool proposeResendOnce(const ConnectionSettings &database)
{
    Result<QSqlDatabase> db = QtSqlConnections::connect(database, QStringLiteral("demo-proposals"));
    if (!db)
        return false;
    Result<QList<ParkedNotification>> parked = OutboxQuery::parkedNotifications(*db, 5);
    if (!parked || parked->size() < 5)
        return false;
    ProposalRequest request;
    request.kind = QStringLiteral("notification.resend");
    request.targetType = QStringLiteral("notification");
    request.summary = QStringLiteral("%1 notifications").arg(parked->size());
    for (const ParkedNotification &notification : std::as_const(*parked))
        request.targets << ActionTarget{QString::number(notification.id), notification.version};
    request.reason = QStringLiteral("merchant says its webhook endpoint is back (demo)");
    request.idempotencyKey = QStringLiteral("demo-resend-parked-notifications");
    return ActionDesk(*db).propose(request).ok();
}

// Once the channel has handled some payments, the service imports the
// simulated channel's statement of the day, with one break of each kind the
// simulator can make, and reconciles it, so the Reconciliation view has a day
// with breaks to look at. `channel` is the one keel's records name (sim, or
// the channel the simulator speaks as), whose day is cut in its own zone.
// Once per demo.
bool reconcileOnce(const ConnectionSettings &service, const QString &channel)
{
    Result<LibpqConnection> session = LibpqConnection::open(service);
    if (!session)
        return false;
    Result<QString> handled = session->scalar(
        "SELECT count(*) FROM keel.sim_channel_operations WHERE outcome = 'approved' "
        "AND currency IS NOT NULL");
    if (!handled || handled->toInt() < 40)
        return false;
    Result<PgRows> day = session->query("SELECT (now() AT TIME ZONE time_zone)::date::text, "
                                        "time_zone FROM keel.recon_channels WHERE channel = $1",
                                        {channel.toUtf8()});
    if (!day || day->size() != 1)
        return true; // the demo goes on without it
    const QDate today = QDate::fromString(day->text(0, 0), Qt::ISODate);
    const QString zone = day->text(0, 1);
    StatementFaults faults;
    faults.drop = faults.changeAmount = faults.duplicate = faults.invent = faults.changeFee = 1;
    StatementLayout layout;
    layout.dayZone = zone;
    constexpr qint64 FeePpm = 6000;
    Result<QByteArray> statement = simulatorStatement(*session, today, FeePpm, faults, layout);
    Result<CurrencyTable> currencies = loadCurrencies(*session);
    if (!statement || !currencies || !setContractedFeeRate(*session, channel, FeePpm))
        return true;
    if (importStatement(*session, channel, {StatementFormat::Csv, *statement, {}}, *currencies))
        (void)runReconciliation(*session, channel, today);
    return true;
}

// A shop's traffic for as long as the demo runs.
SimulationOptions shopTraffic(const DevStack &stack, const QString &apiKey, double rate,
                              int clients)
{
    SimulationOptions options;
    const QString url = stack.gatewayUrl();
    options.yuanOnly = stack.yuanOnly();
    options.url = url;
    options.apiKey = apiKey;
    options.ratePerSecond = rate;
    options.seconds = 0;
    options.clients = clients;
    return options;
}

} // namespace

DemoTraffic::DemoTraffic(DevStack &stack)
    : m_simulator(shopTraffic(stack, stack.apiKey(), 12.0, 3)),
      m_sagas(stack.gatewayUrl(), stack.apiKey(), 0.5,
              stack.yuanOnly() ? QStringLiteral("cny") : QStringLiteral("usd")),
      m_traffic([this] { (void)m_simulator.run(); }), m_housekeeping([this, &stack] {
          // An SRE of the demo proposes, so the person at the console may approve.
          const Result<ConnectionSettings> sre =
              stack.personLogin(QStringLiteral("demo_sre"), {QStringLiteral("keel_sre")});
          bool proposed = !sre.ok();
          bool reconciled = false;
          while (!m_stopping) {
              stack.maintain();
              if (!proposed)
                  proposed = proposeResendOnce(*sre);
              if (!reconciled)
                  reconciled = reconcileOnce(stack.serviceLogin(), stack.statementChannel());
              for (int i = 0; i < 20 && !m_stopping; ++i)
                  std::this_thread::sleep_for(std::chrono::milliseconds(100));
          }
          QtSqlConnections::closeThreadConnections();
      })
{
    (void)m_sagas.start(); // without them the demo still shows payments
    if (Result<QString> key = stack.deadWebhookMerchantKey(); key.ok()) {
        m_deadWebhookShop = std::make_unique<TrafficSimulator>(shopTraffic(stack, *key, 0.3, 1));
        m_deadWebhookTraffic = std::thread([this] { (void)m_deadWebhookShop->run(); });
    }
}

DemoTraffic::~DemoTraffic()
{
    m_stopping = true;
    m_sagas.stop();
    m_simulator.stop();
    if (m_deadWebhookShop)
        m_deadWebhookShop->stop();
    m_traffic.join();
    if (m_deadWebhookTraffic.joinable())
        m_deadWebhookTraffic.join();
    m_housekeeping.join();
}

} // namespace keel
