#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <utility>

namespace keel {

struct HttpReply {
    int status = 0;                                   // 0: no answer (see error)
    QList<std::pair<QByteArray, QByteArray>> headers; // names lower-cased
    QByteArray body;
    QString error;

    QByteArray header(const QByteArray &lowerName) const;
};

// A blocking HTTP/1.1 client over one keep-alive TCP connection, reopened when
// the server closes it. For load generators, simulators and tests talking to
// keel's own gateway; not thread-safe (use one per thread).
class HttpClient final {
public:
    HttpClient(QString host, int port, int timeoutMs = 30000);
    ~HttpClient();
    HttpClient(const HttpClient &) = delete;
    HttpClient &operator=(const HttpClient &) = delete;

    using Headers = QList<std::pair<QByteArray, QByteArray>>;
    HttpReply request(const QByteArray &method, const QByteArray &path, const Headers &headers = {},
                      const QByteArray &body = {});
    // Sends bytes as they are and reads one response (for malformed requests).
    HttpReply raw(const QByteArray &bytes);

    // Parses "http://host:port" into host and port.
    static bool parseUrl(const QString &url, QString *host, int *port);

private:
    bool connectIfNeeded(QString *error);
    void disconnect();
    HttpReply readReply();
    bool fill(QString *error);

    QString m_host;
    int m_port = 0;
    int m_timeoutMs = 30000;
    int m_fd = -1;
    QByteArray m_buffer;
};

} // namespace keel
