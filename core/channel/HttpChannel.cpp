#include "core/channel/HttpChannel.h"

#include "core/channel/ChannelWire.h"
#include "core/net/HttpClient.h"

#include <QUrl>

namespace keel {
namespace {

ChannelResult noAnswer(const HttpReply &reply)
{
    // Refused before anything was sent: certainly not processed.
    if (reply.failure == HttpFailure::Unreachable)
        return {
            ChannelOutcome::Failed, {}, QStringLiteral("channel unreachable: %1").arg(reply.error)};
    return {
        ChannelOutcome::Unknown, {}, QStringLiteral("channel did not answer: %1").arg(reply.error)};
}

} // namespace

HttpChannel::HttpChannel(QString host, int port, int timeoutMs, bool tls, QString authority)
    : m_host(std::move(host)), m_port(port), m_timeoutMs(timeoutMs), m_tls(tls),
      m_authority(std::move(authority))
{}

HttpChannel::~HttpChannel() = default;

std::unique_ptr<HttpClient> HttpChannel::take()
{
    {
        QMutexLocker lock(&m_mutex);
        if (!m_idle.empty()) {
            std::unique_ptr<HttpClient> client = std::move(m_idle.back());
            m_idle.pop_back();
            return client;
        }
    }
    auto client = std::make_unique<HttpClient>(m_host, m_port, m_timeoutMs, m_tls);
    client->setAuthority(m_authority);
    return client;
}

void HttpChannel::give(std::unique_ptr<HttpClient> client)
{
    QMutexLocker lock(&m_mutex);
    m_idle.push_back(std::move(client));
}

ChannelResult HttpChannel::execute(const ChannelRequest &request)
{
    std::unique_ptr<HttpClient> client = take();
    const HttpReply reply =
        client->request("POST", "/v1/operations", {{"Content-Type", "application/json"}},
                        ChannelWire::encodeRequest(request));
    give(std::move(client));
    if (reply.status == 0)
        return noAnswer(reply);
    if (reply.status == 200)
        return ChannelWire::decodeResult(reply.body);
    // 503 and every 4xx: the channel refused before processing.
    if (reply.status == 503 || (reply.status >= 400 && reply.status < 500)) {
        ChannelResult refused = ChannelWire::decodeResult(reply.body);
        return {ChannelOutcome::Failed,
                {},
                refused.message.isEmpty()
                    ? QStringLiteral("channel refused the request (HTTP %1)").arg(reply.status)
                    : refused.message};
    }
    return {
        ChannelOutcome::Unknown, {}, QStringLiteral("channel answered HTTP %1").arg(reply.status)};
}

ChannelResult HttpChannel::query(const ChannelRequest &operation)
{
    std::unique_ptr<HttpClient> client = take();
    const HttpReply reply = client->request(
        "GET", ChannelWire::operationPath(operation.reference, operation.operation));
    give(std::move(client));
    if (reply.status == 200)
        return ChannelWire::decodeResult(reply.body);
    if (reply.status == 404)
        return {ChannelOutcome::NotFound, {}, QStringLiteral("no such operation")};
    if (reply.status == 0)
        return {ChannelOutcome::Unknown,
                {},
                QStringLiteral("channel did not answer: %1").arg(reply.error)};
    return {
        ChannelOutcome::Unknown, {}, QStringLiteral("channel answered HTTP %1").arg(reply.status)};
}

ChannelResult HttpChannel::close(const ChannelRequest &operation)
{
    std::unique_ptr<HttpClient> client = take();
    const HttpReply reply =
        client->request("POST", ChannelWire::closePath(operation.reference, operation.operation),
                        {{"Content-Type", "application/json"}}, "{}");
    give(std::move(client));
    if (reply.status == 200) {
        const ChannelResult answer = ChannelWire::decodeResult(reply.body);
        if (answer.outcome == ChannelOutcome::Closed ||
            answer.outcome == ChannelOutcome::Approved ||
            answer.outcome == ChannelOutcome::Declined)
            return answer;
    }
    // Not closed, and no record of what happened: nothing is promised.
    const QString why = reply.status == 0 ? QStringLiteral("did not answer: %1").arg(reply.error)
                                          : QStringLiteral("answered HTTP %1").arg(reply.status);
    return {ChannelOutcome::Unknown, {}, QStringLiteral("channel close %1").arg(why)};
}

Result<ChannelFactory> httpChannel(const QString &url, int timeoutMs, const QString &authority)
{
    const QUrl parsed(url, QUrl::StrictMode);
    const bool tls = parsed.scheme() == QLatin1String("https");
    if (!parsed.isValid() || parsed.host().isEmpty() ||
        (!tls && parsed.scheme() != QLatin1String("http")) || !parsed.userInfo().isEmpty())
        return fieldError(QStringLiteral("channel"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("--channel must be https://HOST:PORT (or http:// with "
                                         "--allow-http); got \"%1\"")
                              .arg(url));
    // Authorizations and refunds in the clear only where the deployment
    // allows plain HTTP (a simulator on this machine, with --allow-http).
    if (const QString refused = HttpClient::refusal(parsed); !refused.isEmpty())
        return fieldError(QStringLiteral("channel"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("--channel is refused: %1").arg(refused));
    const QString host = parsed.host();
    const int port = parsed.port(tls ? 443 : 80);
    return ChannelFactory([host, port, timeoutMs, tls, authority](const ConnectionSettings &) {
        return std::make_shared<HttpChannel>(host, port, timeoutMs, tls, authority);
    });
}

} // namespace keel
