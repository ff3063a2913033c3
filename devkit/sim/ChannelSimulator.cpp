#include "devkit/sim/ChannelSimulator.h"

#include "core/channel/ChannelWire.h"
#include "core/db/LibpqConnection.h"
#include "core/money/Currency.h"
#include "core/net/HttpRequest.h"
#include "core/net/HttpResponse.h"
#include "core/reference/CurrencyStore.h"

#include <QUrl>

#include <optional>

namespace keel {
namespace {

HttpResponse resultResponse(int status, const ChannelResult &result)
{
    return jsonResponse(status, ChannelWire::encodeResult(result));
}

HttpResponse refused(int status, const QString &message)
{
    return resultResponse(status, {ChannelOutcome::Failed, {}, message});
}

struct OperationPath {
    QString reference;
    QString operation;
};

// "/v1/operations/<reference>/<operation>[/<action>]"
std::optional<OperationPath> operationPath(const QByteArray &path, const QByteArray &action)
{
    QList<QByteArray> parts = path.mid(qsizetype(sizeof "/v1/operations/") - 1).split('/');
    if (!action.isEmpty()) {
        if (parts.size() != 3 || parts.last() != action)
            return std::nullopt;
        parts.removeLast();
    }
    if (parts.size() != 2)
        return std::nullopt;
    return OperationPath{QUrl::fromPercentEncoding(parts.at(0)),
                         QUrl::fromPercentEncoding(parts.at(1))};
}

} // namespace

ChannelSimulator::ChannelSimulator(ChannelSimulatorOptions options)
    : m_options(std::move(options)), m_channel(m_options.settings, m_options.behaviour)
{}

ChannelSimulator::~ChannelSimulator()
{
    stop();
}

Result<std::unique_ptr<ChannelSimulator>> ChannelSimulator::start(ChannelSimulatorOptions options)
{
    std::unique_ptr<ChannelSimulator> simulator(new ChannelSimulator(std::move(options)));
    Result<LibpqConnection> connection = LibpqConnection::open(simulator->m_options.settings);
    if (!connection)
        return connection.error();
    Result<CurrencyTable> currencies = loadCurrencies(*connection);
    if (!currencies)
        return currencies.error();
    simulator->m_currencies = std::make_unique<CurrencyTable>(*std::move(currencies));
    if (simulator->m_options.alipayGateway)
        simulator->m_alipayGateway = std::make_unique<AlipayGatewaySim>(
            *simulator->m_options.alipayGateway, simulator->m_channel,
            simulator->m_options.settings,
            [raw = simulator.get()](const ChannelRequest &request, const ChannelResult &result) {
                raw->announce(request, result);
            });
    if (simulator->m_options.wechatpayGateway)
        simulator->m_wechatpayGateway = std::make_unique<WechatPayGatewaySim>(
            *simulator->m_options.wechatpayGateway, simulator->m_channel,
            simulator->m_options.settings);
    if (simulator->m_options.notifier)
        simulator->m_notifier = std::make_unique<AlipayNotifier>(*simulator->m_options.notifier);
    simulator->m_server = std::make_unique<HttpServer>(simulator->m_options.http, *simulator);
    if (Status started = simulator->m_server->start(); !started)
        return started.error();
    return simulator;
}

QString ChannelSimulator::url() const
{
    return QStringLiteral("%1://%2:%3")
        .arg(m_options.http.tlsCertificateFile.isEmpty() ? QStringLiteral("http")
                                                         : QStringLiteral("https"),
             m_options.http.host)
        .arg(m_server->port());
}

void ChannelSimulator::stop()
{
    if (m_server)
        m_server->stop();
    m_notifier.reset();
}

HttpResponse ChannelSimulator::handle(const HttpRequest &request)
{
    if (m_alipayGateway && request.path == "/gateway.do" && request.method == "POST")
        return m_alipayGateway->handle(request);
    if (m_wechatpayGateway && request.path.startsWith("/v3/"))
        return m_wechatpayGateway->handle(request);
    if (request.path == "/v1/operations" && request.method == "POST")
        return execute(request);
    if (request.path.startsWith("/v1/operations/") && request.method == "GET")
        return query(request.path);
    if (request.path.startsWith("/v1/operations/") && request.method == "POST")
        return close(request.path);
    return refused(404, QStringLiteral("the simulator serves POST /v1/operations, GET "
                                       "/v1/operations/<reference>/<operation> and POST "
                                       "/v1/operations/<reference>/<operation>/close"));
}

HttpResponse ChannelSimulator::refuse(HttpRefusal refusal)
{
    switch (refusal) {
    case HttpRefusal::BodyTooLarge:
        return refused(413, QStringLiteral("body too large"));
    case HttpRefusal::HeadersTooLarge:
        return refused(431, QStringLiteral("headers too large"));
    case HttpRefusal::Malformed:
        break;
    }
    return refused(400, QStringLiteral("malformed request"));
}

HttpResponse ChannelSimulator::execute(const HttpRequest &request)
{
    Result<ChannelRequest> operation = ChannelWire::decodeRequest(request.body);
    if (!operation)
        return refused(400, operation.error().message);
    ChannelResult result = m_channel.execute(*operation);
    if (result.outcome == ChannelOutcome::Unknown) {
        // Processed, and the answer is lost on the way back; the merchant
        // still hears of it asynchronously.
        announce(*operation, m_channel.query(*operation));
        HttpResponse lost;
        lost.withheld = true;
        return lost;
    }
    if (result.outcome == ChannelOutcome::Failed)
        return resultResponse(503, result);
    announce(*operation, result);
    return resultResponse(200, result);
}

HttpResponse ChannelSimulator::query(const QByteArray &path)
{
    const std::optional<OperationPath> asked = operationPath(path, {});
    if (!asked)
        return refused(400, QStringLiteral("GET /v1/operations/<reference>/<operation>"));
    const ChannelResult result = m_channel.query({asked->reference, asked->operation});
    if (result.outcome == ChannelOutcome::NotFound)
        return resultResponse(404, result);
    if (result.outcome == ChannelOutcome::Unknown)
        return resultResponse(503, result);
    return resultResponse(200, result);
}

HttpResponse ChannelSimulator::close(const QByteArray &path)
{
    const std::optional<OperationPath> asked = operationPath(path, "close");
    if (!asked)
        return refused(404, QStringLiteral("POST /v1/operations/<reference>/<operation>/close"));
    const ChannelResult result = m_channel.close({asked->reference, asked->operation});
    return resultResponse(result.outcome == ChannelOutcome::Unknown ? 503 : 200, result);
}

void ChannelSimulator::announce(const ChannelRequest &request, const ChannelResult &result)
{
    if (!m_notifier || request.operation != QLatin1String("authorize"))
        return;
    if (result.outcome != ChannelOutcome::Approved && result.outcome != ChannelOutcome::Declined)
        return;
    const std::optional<Currency> currency = m_currencies->find(request.currency.toUpper());
    if (!currency)
        return;
    m_notifier->notify({request.reference, result.outcome == ChannelOutcome::Approved,
                        formatMajorUnits(request.amount, *currency), currency->code,
                        result.channelReference});
}

} // namespace keel
