#include "devkit/sim/TrafficSimulator.h"

#include "core/net/HttpClient.h"
#include "devkit/sim/OrderSaga.h"

#include <QDeadlineTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QThread>

#include <thread>
#include <vector>

namespace keel {
namespace {

struct Order {
    QByteArray currency;
    qint64 amount;
};

Order randomOrder(QRandomGenerator &random, bool yuanOnly)
{
    // Amounts in each currency's minor units, roughly 5 to 500 of its major unit.
    static const Order shapes[] = {{"cny", 100}, {"usd", 100}, {"eur", 100}, {"jpy", 1}};
    const Order shape = shapes[yuanOnly ? 0 : random.bounded(4)];
    return {shape.currency, shape.amount * (5 + random.bounded(495))};
}

QByteArray chargeBody(const Order &order, const QByteArray &source, const QByteArray &extra = {})
{
    return "amount=" + QByteArray::number(order.amount) + "&currency=" + order.currency +
           "&source=" + source + extra;
}

QString idOf(const HttpReply &reply)
{
    return QJsonDocument::fromJson(reply.body).object().value(QStringLiteral("id")).toString();
}

// One merchant system's connection to the gateway, and the charges it may
// still refund.
class MerchantClient {
public:
    MerchantClient(const QString &host, int port, const SimulationOptions &options, int index,
                   SimulationTally &tally, const QElapsedTimer &clock)
        : m_host(host), m_port(port), m_http(host, port, 15000), m_index(index), m_tally(tally),
          m_options(options), m_clock(clock), m_random(QRandomGenerator::system()->generate()),
          m_authorization("Bearer " + options.apiKey.toLatin1())
    {}

    // One thing a merchant's system does, chosen the way real traffic mixes them.
    void act()
    {
        const int roll = m_random.bounded(100);
        const Order order = randomOrder(m_random, m_options.yuanOnly);
        const QByteArray key = newKey();
        if (roll < 55) { // a plain new charge
            const HttpReply reply = post("/v1/charges", chargeBody(order, "tok_visa"), key);
            if (reply.status == 200) {
                ++m_tally.created;
                m_captured << idOf(reply);
            }
        } else if (roll < 67) { // the client timed out and retries with the same key
            post("/v1/charges", chargeBody(order, "tok_visa"), key);
            post("/v1/charges", chargeBody(order, "tok_visa"), key);
        } else if (roll < 72) { // two copies at once (a double click, a proxy retry)
            sendTwice(chargeBody(order, "tok_visa"), key);
        } else if (roll < 77) { // the same order number again under a fresh key
            const QByteArray orderNo =
                "&out_trade_no=SIM" + QByteArray::number(m_random.generate64(), 36);
            post("/v1/charges", chargeBody(order, "tok_visa", orderNo), key);
            post("/v1/charges", chargeBody(order, "tok_visa", orderNo), newKey());
        } else if (roll < 80) { // a buggy client reuses a key for a different order
            post("/v1/charges", chargeBody(order, "tok_visa"), key);
            post("/v1/charges", chargeBody(randomOrder(m_random, m_options.yuanOnly), "tok_visa"),
                 key);
        } else if (roll < 87) { // a declined card
            const QByteArray source =
                m_random.bounded(2) ? "tok_chargeDeclined" : "tok_chargeDeclinedInsufficientFunds";
            post("/v1/charges", chargeBody(order, source), key);
        } else if (roll < 93) { // authorize now, capture later
            const HttpReply reply =
                post("/v1/charges", chargeBody(order, "tok_visa", "&capture=false"), key);
            if (reply.status == 200)
                post("/v1/charges/" + idOf(reply).toLatin1() + "/capture", {}, newKey());
        } else if (roll < 96 || m_options.participantUrl.isEmpty()) {
            if (!m_captured.isEmpty()) // a refund, sometimes partial
                refundOne(key);
        } else { // an order as a saga
            const QByteArray body = orderSagaDefinition(
                m_options.participantUrl, order.amount, QString::fromLatin1(order.currency),
                QStringLiteral("SIM-ORDER-") + QString::number(m_random.generate64(), 36));
            exchange(m_http, "/v1/sagas", body, key, "application/json");
        }
        if (m_captured.size() > 200)
            m_captured.removeFirst();
    }

private:
    HttpReply post(const QByteArray &path, const QByteArray &body, const QByteArray &key)
    {
        const HttpReply reply = exchange(m_http, path, body, key);
        if (reply.status == 0 || reply.status >= 500)
            ++m_tally.failed;
        else if (reply.header("idempotent-replayed") == "true")
            ++m_tally.replayed;
        else if (reply.status == 409)
            ++m_tally.inFlight;
        else if (reply.status == 422)
            ++m_tally.mismatched;
        else if (reply.status == 402)
            ++m_tally.declined;
        return reply;
    }

    // Sends one request and tells the record what came back.
    HttpReply exchange(HttpClient &http, const QByteArray &path, const QByteArray &body,
                       const QByteArray &key,
                       const QByteArray &type = "application/x-www-form-urlencoded")
    {
        const HttpClient::Headers headers{
            {"Authorization", m_authorization}, {"Content-Type", type}, {"Idempotency-Key", key}};
        const qint64 sentMs = m_clock.elapsed();
        HttpReply reply = http.request("POST", path, headers, body);
        ++m_tally.requests;
        if (m_options.record)
            m_options.record(
                {key, path, body, reply.status, reply.body, sentMs, m_clock.elapsed()});
        return reply;
    }

    void sendTwice(const QByteArray &body, const QByteArray &key)
    {
        HttpClient twin(m_host, m_port, 15000);
        std::thread other([&] {
            if (exchange(twin, "/v1/charges", body, key).status == 409)
                ++m_tally.inFlight;
        });
        post("/v1/charges", body, key);
        other.join();
    }

    void refundOne(const QByteArray &key)
    {
        const QString charge = m_captured.takeAt(m_random.bounded(int(m_captured.size())));
        const QByteArray amount = m_random.bounded(2) ? "&amount=1" : QByteArray();
        if (post("/v1/refunds", "charge=" + charge.toLatin1() + amount, key).status == 200)
            ++m_tally.refunded;
    }

    QByteArray newKey()
    {
        return "sim-" + QByteArray::number(m_index) + '-' +
               QByteArray::number(m_random.generate64(), 36);
    }

    QString m_host;
    int m_port;
    HttpClient m_http;
    int m_index;
    SimulationTally &m_tally;
    const SimulationOptions &m_options;
    const QElapsedTimer &m_clock;
    QRandomGenerator m_random;
    QByteArray m_authorization;
    QList<QString> m_captured;
};

} // namespace

TrafficSimulator::TrafficSimulator(SimulationOptions options) : m_options(std::move(options)) {}

Status TrafficSimulator::run()
{
    QString host;
    int port = 0;
    if (!HttpClient::parseUrl(m_options.url, &host, &port))
        return fieldError(
            QStringLiteral("http"), QStringLiteral("parameter_invalid"),
            QStringLiteral("--http must be a URL such as http://127.0.0.1:8080; got \"%1\"")
                .arg(m_options.url));
    QString participantHost;
    int participantPort = 0;
    if (!m_options.participantUrl.isEmpty() &&
        !HttpClient::parseUrl(m_options.participantUrl, &participantHost, &participantPort))
        return fieldError(QStringLiteral("participant"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("--participant must be a URL such as "
                                         "http://127.0.0.1:9000; got \"%1\"")
                              .arg(m_options.participantUrl));
    m_clock.start();
    std::vector<std::thread> clients;
    for (int i = 0; i < std::max(1, m_options.clients); ++i)
        clients.emplace_back([this, i] { client(i); });
    for (std::thread &thread : clients)
        thread.join();
    return {};
}

void TrafficSimulator::client(int index)
{
    QString host;
    int port = 0;
    HttpClient::parseUrl(m_options.url, &host, &port);
    MerchantClient merchant(host, port, m_options, index, m_tally, m_clock);
    const double perClient =
        std::max(0.1, m_options.ratePerSecond / std::max(1, m_options.clients));
    const QDeadlineTimer end = m_options.seconds > 0
                                   ? QDeadlineTimer(qint64(m_options.seconds) * 1000)
                                   : QDeadlineTimer(QDeadlineTimer::Forever);
    while (!m_stopping && !end.hasExpired()) {
        QDeadlineTimer pace(qint64(1000.0 / perClient));
        merchant.act();
        const qint64 wait = pace.remainingTime();
        if (wait > 0)
            QThread::msleep(ulong(wait));
    }
}

} // namespace keel
