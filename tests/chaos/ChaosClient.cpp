#include "ChaosClient.h"

#include "core/net/HttpClient.h"
#include "devkit/sim/OrderSaga.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QThread>

#include <memory>
#include <random>

namespace keel::chaos {

QString kindName(Told::Kind kind)
{
    switch (kind) {
    case Told::Kind::Charge:
        return QStringLiteral("charge");
    case Told::Kind::Capture:
        return QStringLiteral("capture");
    case Told::Kind::Refund:
        return QStringLiteral("refund");
    case Told::Kind::Saga:
        return QStringLiteral("saga");
    }
    return {};
}

bool isFinalAnswer(int status)
{
    return status >= 200 && status < 500 && status != 409 && status != 429;
}

void readAnswer(Told &told, int status, const QByteArray &reply)
{
    told.status = status;
    const QJsonObject body = QJsonDocument::fromJson(reply).object();
    if (status == 200) {
        told.object = body.value(QStringLiteral("id")).toString();
        told.state = body.value(QStringLiteral("status")).toString();
        told.captured = body.value(QStringLiteral("captured")).toBool();
    } else {
        // A declined charge still names the charge that failed.
        told.object = body.value(QStringLiteral("error"))
                          .toObject()
                          .value(QStringLiteral("charge"))
                          .toString();
        told.state = QStringLiteral("error");
    }
}

namespace {

// One merchant system: its connections to every gateway and its own dice.
class Merchant {
public:
    Merchant(const ClientOptions &options, int index, const QElapsedTimer &clock)
        : m_options(options), m_index(index), m_clock(clock),
          m_random(options.seed * 7919 + quint64(index))
    {
        for (const QString &url : options.gateways) {
            QString host;
            int port = 0;
            HttpClient::parseUrl(url, &host, &port);
            m_gateways.push_back(std::make_unique<HttpClient>(host, port, 8000));
        }
    }

    // Sends until a final answer or the patience runs out; fills in `told`.
    void send(Told &told, int patienceMs, const std::atomic<bool> *abandon = nullptr)
    {
        QElapsedTimer patience;
        patience.start();
        if (told.firstMs == 0)
            told.firstMs = m_clock.elapsed();
        const QByteArray apiKey = told.merchant == QLatin1String("sagas") ? m_options.sagasKey
                                  : told.merchant == QLatin1String("simulate")
                                      ? m_options.simulateKey
                                      : m_options.paymentsKey;
        const HttpClient::Headers headers{
            {"Authorization", "Bearer " + apiKey},
            {"Idempotency-Key", told.key},
            {"Content-Type", told.json ? "application/json" : "application/x-www-form-urlencoded"}};
        for (int attempt = 0;; ++attempt) {
            HttpClient &gateway = *m_gateways[size_t(m_random() % m_gateways.size())];
            const HttpReply reply = gateway.request("POST", told.path, headers, told.body);
            told.attempts << reply.status;
            told.lastMs = m_clock.elapsed();
            if (reply.status == 422 && !told.otherBodies.isEmpty()) {
                // keel took another of the bodies sent under this key: that one is the request.
                told.body = told.otherBodies.takeFirst();
                describeFromBody(told);
                continue;
            }
            if (isFinalAnswer(reply.status)) {
                readAnswer(told, reply.status, reply.body);
                return;
            }
            if (patience.elapsed() > patienceMs || (abandon && abandon->load()))
                return;
            QThread::msleep(ulong(std::min(50 * (attempt + 1), 500)));
        }
    }

    Told next()
    {
        const int roll = int(m_random() % 100);
        Told told;
        told.key = "chaos-" + QByteArray::number(m_index) + '-' + QByteArray::number(++m_keys) +
                   '-' + QByteArray::number(m_options.seed);
        told.merchant = QStringLiteral("payments");
        static const char *const currencies[] = {"usd", "eur", "cny", "jpy"};
        told.currency = QLatin1String(currencies[m_random() % 4]);
        if (m_options.yuanSalesOnly)
            told.currency = QStringLiteral("cny");
        told.amount = 100 + qint64(m_random() % 50000);
        if (roll < 15 && !m_refundable.isEmpty()) {
            const auto &[charge, amount] = m_refundable.at(int(m_random() % m_refundable.size()));
            told.kind = Told::Kind::Refund;
            told.target = charge;
            told.amount = 1 + qint64(m_random() % quint64(std::max<qint64>(1, amount / 2)));
            told.path = "/v1/refunds";
            told.body =
                "charge=" + charge.toLatin1() + "&amount=" + QByteArray::number(told.amount);
        } else if (roll < 30) {
            told.kind = Told::Kind::Saga;
            told.merchant = QStringLiteral("sagas");
            told.currency = m_options.yuanSalesOnly ? QStringLiteral("cny") : QStringLiteral("usd");
            told.amount = 2500;
            told.path = "/v1/sagas";
            told.json = true;
            told.body =
                orderSagaDefinition(m_options.participant, told.amount, told.currency,
                                    QStringLiteral("order-") + QString::fromLatin1(told.key),
                                    m_options.patientSagas && m_random() % 4 == 0 ? 3000 : 50);
        } else {
            told.kind = Told::Kind::Charge;
            told.declinedCard = roll < 38;
            const bool later = roll >= 38 && roll < 50 && !m_options.yuanSalesOnly;
            told.path = "/v1/charges";
            // One payer in fourteen confirms late (5 of the 70 charge rolls):
            // some on their own time, some just as keel gives up and reverses
            // (WeChat Pay then gives the payment back).
            const bool slowPayer = !told.declinedCard && m_options.slowPayers && roll >= 95;
            told.body = "amount=" + QByteArray::number(told.amount) +
                        "&currency=" + told.currency.toLatin1() + "&source=" +
                        (told.declinedCard ? "tok_chargeDeclined"
                         : !slowPayer      ? "tok_visa"
                         : roll >= 98      ? "tok_userPayingConfirmsOnReverse"
                                           : "tok_userPayingConfirms") +
                        (later ? "&capture=false" : "");
        }
        return told;
    }

    // What to do after a charge authorized for later capture.
    std::optional<Told> captureOf(const Told &charge)
    {
        if (charge.status != 200 || !charge.body.contains("capture=false") ||
            charge.state != QLatin1String("succeeded") || charge.captured)
            return std::nullopt;
        Told capture;
        capture.kind = Told::Kind::Capture;
        capture.key = charge.key + "-capture";
        capture.merchant = charge.merchant;
        capture.currency = charge.currency;
        capture.amount = charge.amount;
        capture.target = charge.object;
        capture.path = "/v1/charges/" + charge.object.toLatin1() + "/capture";
        return capture;
    }

    void remember(const Told &told)
    {
        const bool captured =
            (told.kind == Told::Kind::Capture || told.kind == Told::Kind::Charge) &&
            told.status == 200 && told.captured;
        if (captured)
            m_refundable.append(
                {told.kind == Told::Kind::Capture ? told.target : told.object, told.amount});
        if (m_refundable.size() > 50)
            m_refundable.removeFirst();
    }

private:
    const ClientOptions &m_options;
    int m_index;
    const QElapsedTimer &m_clock;
    std::mt19937_64 m_random;
    std::vector<std::unique_ptr<HttpClient>> m_gateways;
    QList<std::pair<QString, qint64>> m_refundable;
    int m_keys = 0;
};

} // namespace

ChaosClient::ChaosClient(ClientOptions options, ClientRecord &record, const QElapsedTimer &clock)
    : m_options(std::move(options)), m_record(record), m_clock(clock)
{}

ChaosClient::~ChaosClient()
{
    stop();
}

void ChaosClient::start()
{
    for (int i = 0; i < m_options.clients; ++i)
        m_threads.emplace_back([this, i] { run(i); });
}

void ChaosClient::stop()
{
    m_stopping = true;
    for (std::thread &thread : m_threads)
        thread.join();
    m_threads.clear();
}

void ChaosClient::run(int index)
{
    Merchant merchant(m_options, index, m_clock);
    while (!m_stopping) {
        Told told = merchant.next();
        merchant.send(told, m_options.patienceMs, &m_stopping);
        std::optional<Told> capture = merchant.captureOf(told);
        merchant.remember(told);
        m_record.add(told);
        if (capture && !m_stopping) {
            merchant.send(*capture, m_options.patienceMs, &m_stopping);
            merchant.remember(*capture);
            m_record.add(*capture);
        }
        QThread::msleep(ulong(m_options.pauseMs));
    }
}

int ChaosClient::resolveOpenRequests(int budgetMs)
{
    QElapsedTimer budget;
    budget.start();
    QList<Told> open;
    QList<Told> kept;
    for (Told &told : m_record.takeAll())
        (told.status == 0 ? open : kept).append(std::move(told));
    Merchant merchant(m_options, m_options.clients, m_clock);
    // In passes, one attempt per key each, so that no key answered "busy"
    // over and over takes the budget from the keys behind it.
    for (bool anyOpen = !open.isEmpty(); anyOpen && budget.elapsed() < budgetMs;) {
        anyOpen = false;
        for (Told &told : open) {
            if (told.status != 0 || budget.elapsed() >= budgetMs)
                continue;
            merchant.send(told, 0);
            anyOpen = anyOpen || told.status == 0;
        }
        if (anyOpen)
            QThread::msleep(200);
    }
    int unresolved = 0;
    for (Told &told : open) {
        unresolved += told.status == 0 ? 1 : 0;
        kept.append(std::move(told));
    }
    for (Told &told : kept)
        m_record.add(std::move(told));
    return unresolved;
}

} // namespace keel::chaos
