#include "devkit/sim/AlipayNotifier.h"

#include "core/ServiceLog.h"
#include "core/net/HttpClient.h"
#include "core/signing/AlipaySignature.h"

#include <QDateTime>
#include <QUrl>

namespace keel {
namespace {

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

QByteArray formBody(const AlipaySignature::Parameters &parameters)
{
    QByteArrayList pairs;
    for (const auto &[key, value] : parameters)
        pairs << QUrl::toPercentEncoding(key) + '=' + QUrl::toPercentEncoding(value);
    return pairs.join('&');
}

} // namespace

AlipayNotifier::AlipayNotifier(AlipayNotifierOptions options)
    : m_options(std::move(options)), m_thread([this] { run(); })
{}

AlipayNotifier::~AlipayNotifier()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

void AlipayNotifier::notify(const TradeResult &trade)
{
    {
        std::lock_guard lock(m_mutex);
        m_pending.push_back({trade, nowMs() + m_options.delayMs, 0});
    }
    m_wake.notify_all();
}

void AlipayNotifier::run()
{
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        auto due =
            std::min_element(m_pending.begin(), m_pending.end(),
                             [](const Pending &a, const Pending &b) { return a.dueMs < b.dueMs; });
        if (due == m_pending.end()) {
            m_wake.wait(lock);
            continue;
        }
        const qint64 waitMs = due->dueMs - nowMs();
        if (waitMs > 0) {
            m_wake.wait_for(lock, std::chrono::milliseconds(waitMs));
            continue;
        }
        Pending pending = *due;
        m_pending.erase(due);
        lock.unlock();
        const bool sent = send(pending.trade);
        lock.lock();
        if (sent) {
            ++m_delivered;
        } else if (pending.attempt < m_options.retryMs.size()) {
            pending.dueMs = nowMs() + m_options.retryMs.at(pending.attempt);
            ++pending.attempt;
            m_pending.push_back(pending);
        } else {
            ServiceLog::warning(QStringLiteral("keel channel-sim: gave up notifying %1")
                                    .arg(pending.trade.reference));
        }
    }
}

bool AlipayNotifier::send(const TradeResult &trade)
{
    const QUrl url(m_options.url);
    AlipaySignature::Parameters parameters{
        {QStringLiteral("notify_id"), QStringLiteral("sim_") + trade.reference},
        {QStringLiteral("notify_type"), QStringLiteral("trade_status_sync")},
        {QStringLiteral("notify_time"),
         QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))},
        {QStringLiteral("out_trade_no"), trade.reference},
        {QStringLiteral("trade_status"),
         trade.succeeded ? QStringLiteral("TRADE_SUCCESS") : QStringLiteral("TRADE_CLOSED")},
        {QStringLiteral("total_amount"), trade.totalAmount},
        {QStringLiteral("trans_currency"), trade.currency},
        {QStringLiteral("charset"), QStringLiteral("utf-8")},
        {QStringLiteral("version"), QStringLiteral("1.0")}};
    if (!trade.tradeNo.isEmpty())
        parameters << qMakePair(QStringLiteral("trade_no"), trade.tradeNo);
    Result<QString> sign = AlipaySignature::sign(parameters, m_options.signingKey);
    if (!sign)
        return false;
    parameters << qMakePair(QStringLiteral("sign_type"), QStringLiteral("RSA2"))
               << qMakePair(QStringLiteral("sign"), *sign);
    // As Alipay would: TLS to an https:// gateway. The simulator is a
    // development tool, and plain http:// is its usual target.
    const bool tls = url.scheme() == QLatin1String("https");
    HttpClient client(url.host(), url.port(tls ? 443 : 80), 10000, tls);
    const HttpReply reply =
        client.request("POST", url.path(QUrl::FullyEncoded).toLatin1(),
                       {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"}},
                       formBody(parameters));
    return reply.status == 200 && reply.body.trimmed() == "success";
}

} // namespace keel
