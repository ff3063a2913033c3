#pragma once

#include "core/Result.h"
#include "core/payment/Channel.h"

#include <QMutex>
#include <QString>

#include <memory>
#include <vector>

namespace keel {

class HttpClient;

// A channel in another process, reached over HTTP or HTTPS (ChannelWire)
// with a timeout like any real network: an answer that does not come in
// time is Unknown; a connection refused, or a TLS peer that does not
// verify, before anything was sent is Failed.
class HttpChannel final : public Channel {
public:
    // `authority`: a PEM file trusted for this channel alone (its private CA).
    HttpChannel(QString host, int port, int timeoutMs, bool tls = false, QString authority = {});
    ~HttpChannel() override;

    QString name() const override { return QStringLiteral("http"); }
    QString statementChannel() const override { return QStringLiteral("sim"); }
    ChannelResult execute(const ChannelRequest &request) override;
    ChannelResult query(const ChannelRequest &operation) override;
    ChannelResult close(const ChannelRequest &operation) override;

private:
    // One keep-alive client per concurrent caller, reused.
    std::unique_ptr<HttpClient> take();
    void give(std::unique_ptr<HttpClient> client);

    QString m_host;
    int m_port = 0;
    int m_timeoutMs = 0;
    bool m_tls = false;
    QString m_authority;
    QMutex m_mutex;
    std::vector<std::unique_ptr<HttpClient>> m_idle;
};

// A factory for `keel gateway --channel URL`; an error if the URL is not
// https://HOST[:PORT] or http://HOST:PORT.
Result<ChannelFactory> httpChannel(const QString &url, int timeoutMs,
                                   const QString &authority = {});

} // namespace keel
