#include "devkit/sim/DemoSagas.h"

#include "core/net/HttpClient.h"
#include "core/net/HttpRequest.h"
#include "core/net/HttpResponse.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QThread>
#include <QUrlQuery>

#include <chrono>

namespace keel {
namespace {

bool chance(double rate)
{
    return QRandomGenerator::global()->generateDouble() < rate;
}

QJsonObject retry(int attempts, int backoffMs, int maxBackoffMs, int timeoutMs)
{
    return {{QStringLiteral("attempts"), attempts},
            {QStringLiteral("backoff_ms"), backoffMs},
            {QStringLiteral("max_backoff_ms"), maxBackoffMs},
            {QStringLiteral("timeout_ms"), timeoutMs}};
}

} // namespace

DemoSagas::DemoSagas(QString gatewayUrl, QString apiKey, double sagasPerSecond, QString currency)
    : m_gatewayUrl(std::move(gatewayUrl)), m_apiKey(std::move(apiKey)), m_rate(sagasPerSecond),
      m_currency(std::move(currency))
{}

DemoSagas::~DemoSagas()
{
    stop();
}

Status DemoSagas::start()
{
    HttpServerOptions options;
    options.threads = 8;
    m_participants = std::make_unique<HttpServer>(options, *this);
    if (Status started = m_participants->start(); !started)
        return started;
    m_poster = std::thread([this] { post(); });
    return {};
}

void DemoSagas::stop()
{
    m_stopping = true;
    if (m_poster.joinable())
        m_poster.join();
    if (m_participants)
        m_participants->stop();
    m_participants.reset();
}

QString DemoSagas::url(const char *path) const
{
    return QStringLiteral("http://127.0.0.1:%1%2")
        .arg(m_participants->port())
        .arg(QString::fromLatin1(path));
}

QByteArray DemoSagas::definition(int order) const
{
    // One order in ten is paid with a card the network will not refund, and
    // its confirmation fails: the refund that should undo it fails too, and
    // the saga ends parked in suspense.
    const QString source =
        order % 10 == 5 ? QStringLiteral("tok_refundFails") : QStringLiteral("tok_visa");
    const QJsonArray steps{
        QJsonObject{{QStringLiteral("name"), QStringLiteral("reserve_inventory")},
                    {QStringLiteral("action_url"), url("/inventory/reserve")},
                    {QStringLiteral("compensate_url"), url("/inventory/release")},
                    {QStringLiteral("payload"), QJsonObject{{QStringLiteral("sku"), order % 40}}},
                    {QStringLiteral("retry"), retry(4, 300, 2000, 800)},
                    {QStringLiteral("compensation_retry"), retry(2, 500, 2000, 800)}},
        QJsonObject{{QStringLiteral("name"), QStringLiteral("charge")},
                    {QStringLiteral("kind"), QStringLiteral("charge")},
                    {QStringLiteral("amount"), 500 + QRandomGenerator::global()->bounded(20000)},
                    {QStringLiteral("currency"), m_currency},
                    {QStringLiteral("source"), source},
                    {QStringLiteral("compensation_retry"), retry(2, 500, 2000, 5000)}},
        QJsonObject{{QStringLiteral("name"), QStringLiteral("confirm_order")},
                    {QStringLiteral("action_url"), url("/orders/confirm")},
                    {QStringLiteral("payload"), QJsonObject{{QStringLiteral("order"), order}}},
                    {QStringLiteral("compensate_url"), url("/orders/cancel")},
                    {QStringLiteral("retry"), retry(4, 300, 2000, 800)},
                    {QStringLiteral("compensation_retry"), retry(2, 500, 2000, 800)}},
        QJsonObject{{QStringLiteral("name"), QStringLiteral("notify_customer")},
                    {QStringLiteral("action_url"), url("/notify")},
                    {QStringLiteral("payload"), QJsonObject{{QStringLiteral("order"), order}}},
                    {QStringLiteral("retry"), retry(12, 1000, 5000, 800)}}};
    return QJsonDocument(
               QJsonObject{{QStringLiteral("name"), QStringLiteral("order")},
                           {QStringLiteral("business_key"), QStringLiteral("order-%1").arg(order)},
                           {QStringLiteral("stuck_after_seconds"), 45},
                           {QStringLiteral("steps"), steps}})
        .toJson(QJsonDocument::Compact);
}

void DemoSagas::post()
{
    QString host;
    int port = 0;
    if (!HttpClient::parseUrl(m_gatewayUrl, &host, &port))
        return;
    HttpClient client(host, port, 10000);
    const int pauseMs = m_rate > 0 ? int(1000 / m_rate) : 2000;
    for (int order = QRandomGenerator::global()->bounded(100000); !m_stopping; ++order) {
        (void)client.request("POST", "/v1/sagas",
                             {{"Authorization", "Bearer " + m_apiKey.toLatin1()},
                              {"Content-Type", "application/json"},
                              {"Idempotency-Key", "demo-order-" + QByteArray::number(order)}},
                             definition(order));
        for (int waited = 0; waited < pauseMs && !m_stopping; waited += 100)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

HttpResponse DemoSagas::handle(const HttpRequest &request)
{
    const QByteArray ok = "{\"dtm_result\":\"SUCCESS\"}";
    const bool compensating =
        QUrlQuery(QString::fromUtf8(request.query)).queryItemValue(QStringLiteral("op")) ==
        QLatin1String("compensate");
    if (request.path == "/inventory/reserve") {
        if (chance(0.10))
            return jsonResponse(503, "{\"error\":\"inventory busy\"}");
        if (chance(0.05)) // answers after keel gave up: the retry is a second delivery
            QThread::msleep(1000);
        return jsonResponse(200, ok);
    }
    const int order =
        QJsonDocument::fromJson(request.body).object().value(QStringLiteral("order")).toInt();
    if (request.path == "/orders/confirm") {
        if (order % 10 == 5 || chance(0.10))
            return jsonResponse(409, "{\"dtm_result\":\"FAILURE\",\"reason\":\"order expired\"}");
        if (chance(0.10))
            QThread::msleep(300 + QRandomGenerator::global()->bounded(400));
        return jsonResponse(200, ok);
    }
    if (request.path == "/notify") {
        // One customer's mailbox in twelve is broken: that saga keeps retrying
        // past the attempt count that makes it stuck, then gives up.
        if (order % 12 == 0 || chance(0.05))
            return jsonResponse(503, "{\"error\":\"smtp relay down\"}");
        return jsonResponse(200, ok);
    }
    if (compensating && chance(0.05))
        return jsonResponse(503, "{\"error\":\"try again\"}");
    return jsonResponse(200, ok);
}

HttpResponse DemoSagas::refuse(HttpRefusal)
{
    return jsonResponse(400, "{}");
}

} // namespace keel
