#pragma once

#include "core/net/HttpServer.h"

#include <QString>

#include <atomic>
#include <memory>
#include <thread>

namespace keel {

// Order sagas for the demo, against local stand-ins for the services a real
// order touches (inventory, orders, notifications). The stand-ins misbehave
// the way real ones do — they fail, answer slowly, time out (so a call is
// delivered twice), refuse a confirmation, and one customer's card cannot be
// refunded — so within a minute the console shows sagas compensating, stuck
// and parked in suspense, next to the many that succeed.
class DemoSagas final : public HttpHandler {
public:
    // `currency`: what the sagas' charges are in (cny for a channel in Alipay mode).
    DemoSagas(QString gatewayUrl, QString apiKey, double sagasPerSecond = 0.5,
              QString currency = QStringLiteral("usd"));
    ~DemoSagas() override;
    Q_DISABLE_COPY_MOVE(DemoSagas)

    Status start();
    void stop();

    HttpResponse handle(const HttpRequest &request) override;
    HttpResponse refuse(HttpRefusal refusal) override;

private:
    void post();
    QByteArray definition(int order) const;
    QString url(const char *path) const;

    QString m_gatewayUrl;
    QString m_apiKey;
    double m_rate;
    QString m_currency;
    std::unique_ptr<HttpServer> m_participants;
    std::atomic<bool> m_stopping{false};
    std::thread m_poster;
};

} // namespace keel
