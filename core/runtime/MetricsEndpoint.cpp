#include "core/runtime/MetricsEndpoint.h"

#include "core/metrics/Metrics.h"
#include "core/net/HttpRequest.h"
#include "core/net/HttpResponse.h"

namespace keel {
namespace {

HttpResponse plain(int status, const QByteArray &body)
{
    HttpResponse response;
    response.status = status;
    response.body = body;
    response.setHeader("Content-Type", "text/plain; charset=utf-8");
    return response;
}

} // namespace

Result<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::start(const QString &host, int port)
{
    std::unique_ptr<MetricsEndpoint> endpoint(new MetricsEndpoint);
    HttpServerOptions options;
    options.host = host;
    options.port = port;
    options.threads = 1; // one scraper, now and then
    options.maxBodyBytes = 1024;
    endpoint->m_host = host;
    endpoint->m_server = std::make_unique<HttpServer>(options, *endpoint);
    if (Status started = endpoint->m_server->start(); !started)
        return started.error();
    return endpoint;
}

MetricsEndpoint::~MetricsEndpoint()
{
    if (m_server)
        m_server->stop();
}

QString MetricsEndpoint::url() const
{
    return QStringLiteral("http://%1:%2").arg(m_host).arg(m_server->port());
}

HttpResponse MetricsEndpoint::handle(const HttpRequest &request)
{
    if (request.method != "GET")
        return plain(405, "GET only\n");
    if (request.path == "/healthz")
        return plain(200, "ok\n");
    if (request.path != "/metrics")
        return plain(404, "this address serves /metrics and /healthz\n");
    HttpResponse response;
    response.body = Metrics::instance().prometheusText();
    response.setHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    return response;
}

HttpResponse MetricsEndpoint::refuse(HttpRefusal)
{
    return plain(400, "malformed request\n");
}

} // namespace keel
