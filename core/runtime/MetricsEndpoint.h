#pragma once

#include "core/Result.h"
#include "core/net/HttpServer.h"

#include <QString>

#include <memory>

namespace keel {

// /metrics and /healthz on an address of their own, for the processes that
// serve no API: keel worker and keel relay, scraped as the jobs keel-worker
// and keel-relay (packaging/prometheus: an alert when one is down).
class MetricsEndpoint final : public HttpHandler {
public:
    static Result<std::unique_ptr<MetricsEndpoint>> start(const QString &host, int port);
    ~MetricsEndpoint() override;
    Q_DISABLE_COPY_MOVE(MetricsEndpoint)

    QString url() const;
    HttpResponse handle(const HttpRequest &request) override;
    HttpResponse refuse(HttpRefusal refusal) override;

private:
    MetricsEndpoint() = default;

    QString m_host;
    std::unique_ptr<HttpServer> m_server;
};

} // namespace keel
