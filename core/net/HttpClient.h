#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <memory>
#include <utility>

class QUrl;

namespace keel {

class Deadline;
class TlsSession;

// Why a request got no answer: the behaviour after it (may the request have
// been acted on? may it be sent again?) depends on which.
enum class HttpFailure {
    None,
    Unreachable, // not sent: the host did not resolve, refused the connection, or failed TLS
    TimedOut,    // sent, and no whole answer within the timeout: it may have been acted on
    Closed,      // sent, and the server closed the connection without a whole answer
};

struct HttpReply {
    int status = 0; // 0: no answer (see failure and error)
    HttpFailure failure = HttpFailure::None;
    QList<std::pair<QByteArray, QByteArray>> headers; // names lower-cased
    QByteArray body;
    QString error;
    // The request went out twice: a kept-alive connection closed after the
    // first copy, which the server may have acted on, so the answer may be
    // to a repeat.
    bool resent = false;

    QByteArray header(const QByteArray &lowerName) const;
};

// A blocking HTTP/1.1 client over one keep-alive TCP connection, reopened when
// the server closes it; over TLS (TlsSession) when asked. The timeout bounds
// the whole call: connect, TLS handshake, sending and the answer, however a
// peer paces its bytes (host names are resolved by the system, outside it).
// Not thread-safe (use one per thread).
class HttpClient final {
public:
    HttpClient(QString host, int port, int timeoutMs = 30000, bool tls = false);
    // For a URL keel may call (refusal() says which): TLS and port 443 for
    // https:// unless it says; null for any other.
    static std::unique_ptr<HttpClient> forUrl(const QUrl &url, int timeoutMs);

    // Whether keel may call http:// URLs (merchant notifications, saga and
    // TCC participants) in this process. Off unless the deployment allows
    // it: `--allow-http`, and the development stack, which runs on loopback.
    static void allowPlainHttp(bool allowed);
    static bool plainHttpAllowed();
    // Why keel would not call `url` ("" if it would), as one sentence
    // naming no field: the caller knows which one it checked.
    static QString refusal(const QUrl &url);
    // Trust this PEM file's authority for this client's TLS peer, instead of
    // the process's extra one (TlsSession::handshake's `authority`).
    void setAuthority(const QString &caFile) { m_authority = caFile; }
    ~HttpClient();
    HttpClient(const HttpClient &) = delete;
    HttpClient &operator=(const HttpClient &) = delete;

    // Connects and, over TLS, negotiates and verifies the peer, sending
    // nothing (`keel doctor`'s look at a host a service will call); `why`
    // says why not.
    enum class Reach {
        Reached,
        NotConnected,    // no connection: the name, the address, a firewall
        HandshakeFailed, // connected, and no TLS spoken: timed out, or not an https server
        Untrusted,       // its certificate did not verify against the trust given
    };
    Reach reach(QString *why);

    using Headers = QList<std::pair<QByteArray, QByteArray>>;
    HttpReply request(const QByteArray &method, const QByteArray &path, const Headers &headers = {},
                      const QByteArray &body = {});
    // Sends bytes as they are and reads one response (for malformed requests).
    HttpReply raw(const QByteArray &bytes);

    // Parses "http://host:port" into host and port.
    static bool parseUrl(const QString &url, QString *host, int *port);

private:
    bool connectIfNeeded(HttpReply *reply, const Deadline &deadline);
    bool connectWithin(const void *address, unsigned length, const Deadline &deadline);
    bool send(const QByteArray &bytes, const Deadline &deadline);
    bool unusable() const;
    void disconnect();
    HttpReply readReply(const Deadline &deadline);
    bool readChunked(HttpReply *reply, const Deadline &deadline);
    bool fillTo(qsizetype bytes, HttpReply *reply, const Deadline &deadline);
    bool fill(HttpReply *reply, const Deadline &deadline);
    HttpReply unreadable(const QString &why);

    QString m_host;
    int m_port = 0;
    int m_timeoutMs = 30000;
    bool m_tlsWanted = false;
    QString m_authority;
    int m_fd = -1;
    std::unique_ptr<TlsSession> m_tls;
    QByteArray m_buffer;
    bool m_answerStarted = false;         // bytes of the current request's answer have arrived
    Reach m_lastFailure = Reach::Reached; // how the last connection attempt failed
};

} // namespace keel
