#include "core/net/HttpClient.h"

#include "core/net/Deadline.h"
#include "core/net/Resolver.h"
#include "core/net/TlsSession.h"

#include <QUrl>

#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <utility>

namespace keel {

QByteArray HttpReply::header(const QByteArray &lowerName) const
{
    for (const auto &[name, value] : headers)
        if (name == lowerName)
            return value;
    return {};
}

HttpClient::HttpClient(QString host, int port, int timeoutMs, bool tls)
    : m_host(std::move(host)), m_port(port), m_timeoutMs(timeoutMs), m_tlsWanted(tls)
{}

namespace {
std::atomic<bool> g_plainHttpAllowed{false};
} // namespace

void HttpClient::allowPlainHttp(bool allowed)
{
    g_plainHttpAllowed = allowed;
}

bool HttpClient::plainHttpAllowed()
{
    return g_plainHttpAllowed;
}

QString HttpClient::refusal(const QUrl &url)
{
    if (!url.isValid() || url.host().isEmpty())
        return QStringLiteral("it is not a URL with a host");
    if (url.scheme() == QLatin1String("https"))
        return {};
    if (url.scheme() == QLatin1String("http"))
        return g_plainHttpAllowed ? QString()
                                  : QStringLiteral("it is plain http://, which this deployment "
                                                   "does not call (https:// only; --allow-http "
                                                   "allows it for development and tests)");
    return QStringLiteral("it is not an https:// URL");
}

std::unique_ptr<HttpClient> HttpClient::forUrl(const QUrl &url, int timeoutMs)
{
    if (!refusal(url).isEmpty())
        return nullptr;
    const bool tls = url.scheme() == QLatin1String("https");
    return std::make_unique<HttpClient>(url.host(), url.port(tls ? 443 : 80), timeoutMs, tls);
}

HttpClient::~HttpClient()
{
    disconnect();
}

bool HttpClient::parseUrl(const QString &text, QString *host, int *port)
{
    const QUrl url(text);
    if (!url.isValid() || url.scheme() != QLatin1String("http") || url.host().isEmpty())
        return false;
    *host = url.host();
    *port = url.port(80);
    return true;
}

void HttpClient::disconnect()
{
    m_tls.reset();
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    m_buffer.clear();
}

bool HttpClient::unusable() const
{
    if (m_tls && m_tls->pending())
        return true;
    // Nothing was asked, so anything readable is end-of-file, an error, or
    // bytes the peer sent unasked (an answer repeated): none of them can be
    // followed by the answer to a new request.
    pollfd waiting{m_fd, POLLIN, 0};
    if (::poll(&waiting, 1, 0) <= 0)
        return false;
    char byte;
    const ssize_t got = ::recv(m_fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return got >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
}

bool HttpClient::connectIfNeeded(HttpReply *reply, const Deadline &deadline)
{
    if (m_fd >= 0)
        return true;
    m_lastFailure = Reach::NotConnected;
    // An internationalized name is looked up, and its certificate checked,
    // in the xn-- form the DNS and certificates carry.
    const QByteArray host = QUrl::toAce(m_host);
    QString error;
    const std::vector<ResolvedAddress> addresses =
        resolveWithin(host.isEmpty() ? m_host.toLatin1() : host, m_port, deadline, &error);
    if (addresses.empty()) {
        reply->failure = HttpFailure::Unreachable;
        reply->error = error;
        return false;
    }
    // Each address in turn (IPv6 and IPv4 alike), while time is left.
    bool connected = false;
    int why = 0;
    for (const ResolvedAddress &address : addresses) {
        m_fd = ::socket(address.family, SOCK_STREAM, 0);
        connected = m_fd >= 0 && connectWithin(&address.address, address.length, deadline);
        if (connected)
            break;
        why = errno;
        disconnect();
        if (deadline.passed())
            break;
    }
    if (!connected) {
        reply->failure = HttpFailure::Unreachable;
        reply->error = QStringLiteral("cannot connect to %1:%2: %3")
                           .arg(m_host)
                           .arg(m_port)
                           .arg(QString::fromLocal8Bit(std::strerror(why)));
        return false;
    }
    const int one = 1;
    ::setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (!m_tlsWanted)
        return true;
    m_tls = std::make_unique<TlsSession>();
    if (const QString refused = m_tls->handshake(m_fd, m_host, deadline, m_authority);
        !refused.isEmpty()) {
        m_lastFailure = m_tls->peerUntrusted() ? Reach::Untrusted : Reach::HandshakeFailed;
        reply->failure = HttpFailure::Unreachable;
        reply->error = refused;
        disconnect();
        return false;
    }
    return true;
}

HttpClient::Reach HttpClient::reach(QString *why)
{
    HttpReply reply;
    if (connectIfNeeded(&reply, Deadline(m_timeoutMs)))
        return Reach::Reached;
    *why = reply.error;
    return m_lastFailure;
}

// A connect that gives up at the deadline, as a host that drops packets
// would otherwise hold the caller for the system's minutes. The socket is
// left blocking, with errno saying why when it fails.
bool HttpClient::connectWithin(const void *address, unsigned length, const Deadline &deadline)
{
    const int flags = ::fcntl(m_fd, F_GETFL);
    ::fcntl(m_fd, F_SETFL, flags | O_NONBLOCK);
    if (::connect(m_fd, static_cast<const sockaddr *>(address), socklen_t(length)) != 0) {
        if (errno != EINPROGRESS)
            return false;
        pollfd writable{m_fd, POLLOUT, 0};
        int ready;
        do
            ready = ::poll(&writable, 1, deadline.remainingMs());
        while (ready < 0 && errno == EINTR);
        if (ready <= 0) {
            errno = ready == 0 ? ETIMEDOUT : errno;
            return false;
        }
        int failed = 0;
        socklen_t size = sizeof failed;
        ::getsockopt(m_fd, SOL_SOCKET, SO_ERROR, &failed, &size);
        if (failed != 0) {
            errno = failed;
            return false;
        }
    }
    ::fcntl(m_fd, F_SETFL, flags);
    return true;
}

bool HttpClient::send(const QByteArray &bytes, const Deadline &deadline)
{
    if (m_tls)
        return m_tls->write(bytes.constData(), bytes.size(), deadline) == TlsSession::Io::Done;
    qsizetype sent = 0;
    while (sent < bytes.size()) {
        pollfd writable{m_fd, POLLOUT, 0};
        int ready;
        do
            ready = ::poll(&writable, 1, deadline.remainingMs());
        while (ready < 0 && errno == EINTR);
        if (ready <= 0)
            return false;
        const ssize_t n = ::send(m_fd, bytes.constData() + sent, size_t(bytes.size() - sent),
                                 MSG_NOSIGNAL | MSG_DONTWAIT);
        // Writable yet refused (the kernel's memory for sockets is short):
        // ask again while time is left, never spin past the deadline.
        if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) &&
            !deadline.passed()) {
            ::usleep(1000);
            continue;
        }
        if (n <= 0)
            return false;
        sent += n;
    }
    return true;
}

bool HttpClient::fill(HttpReply *reply, const Deadline &deadline)
{
    // Bytes TLS has decrypted already are not on the socket to poll for.
    if (!m_tls || !m_tls->pending()) {
        pollfd waiting{m_fd, POLLIN, 0};
        int ready;
        do // a signal is not the peer's silence: wait for what is left
            ready = ::poll(&waiting, 1, deadline.remainingMs());
        while (ready < 0 && errno == EINTR);
        if (ready <= 0) {
            reply->failure = ready == 0 ? HttpFailure::TimedOut : HttpFailure::Closed;
            reply->error = ready == 0 ? QStringLiteral("timed out") : QStringLiteral("poll failed");
            return false;
        }
    }
    char chunk[16384];
    qsizetype got = 0;
    if (m_tls) {
        const TlsSession::Io read = m_tls->read(chunk, sizeof chunk, &got, deadline);
        if (read == TlsSession::Io::WouldBlock) {
            reply->failure = HttpFailure::TimedOut;
            reply->error = QStringLiteral("timed out in the middle of a TLS record");
            return false;
        }
    } else {
        got = ::recv(m_fd, chunk, sizeof chunk, 0);
    }
    if (got <= 0) {
        reply->failure = HttpFailure::Closed;
        reply->error = QStringLiteral("connection closed");
        return false;
    }
    m_buffer.append(chunk, got);
    m_answerStarted = true;
    return true;
}

// An answer that cannot be read whole: the request may have been acted on.
HttpReply HttpClient::unreadable(const QString &why)
{
    disconnect();
    HttpReply reply;
    reply.failure = HttpFailure::Closed;
    reply.error = why;
    return reply;
}

// Waits until the buffer holds `bytes` bytes, or says why not (the
// connection dropped, its answer in doubt).
bool HttpClient::fillTo(qsizetype bytes, HttpReply *reply, const Deadline &deadline)
{
    while (m_buffer.size() < bytes)
        if (!fill(reply, deadline)) {
            disconnect();
            reply->status = 0; // half an answer is no answer
            return false;
        }
    return true;
}

// The body of a chunked answer, chunk by chunk, its trailer skipped.
bool HttpClient::readChunked(HttpReply *reply, const Deadline &deadline)
{
    for (;;) {
        qsizetype lineEnd;
        while ((lineEnd = m_buffer.indexOf("\r\n")) < 0)
            if (!fillTo(m_buffer.size() + 1, reply, deadline))
                return false;
        bool ok = false;
        const qsizetype size =
            m_buffer.left(lineEnd).split(';').constFirst().trimmed().toLongLong(&ok, 16);
        if (!ok || size < 0) {
            *reply = unreadable(QStringLiteral("a chunk of the answer has no readable size"));
            return false;
        }
        m_buffer.remove(0, lineEnd + 2);
        if (size == 0)
            break;
        if (!fillTo(size + 2, reply, deadline))
            return false;
        reply->body += m_buffer.left(size);
        m_buffer.remove(0, size + 2);
    }
    for (;;) { // the trailer's fields, up to the empty line
        qsizetype lineEnd;
        while ((lineEnd = m_buffer.indexOf("\r\n")) < 0)
            if (!fillTo(m_buffer.size() + 1, reply, deadline))
                return false;
        m_buffer.remove(0, lineEnd + 2);
        if (lineEnd == 0)
            return true;
    }
}

HttpReply HttpClient::readReply(const Deadline &deadline)
{
    HttpReply reply;
    for (;;) {
        qsizetype end;
        while ((end = m_buffer.indexOf("\r\n\r\n")) < 0)
            if (!fill(&reply, deadline)) {
                disconnect();
                return reply;
            }
        const QList<QByteArray> lines = m_buffer.left(end).split('\n');
        const QList<QByteArray> statusLine = lines.constFirst().trimmed().split(' ');
        reply.status = statusLine.size() > 1 && statusLine.at(0).startsWith("HTTP/")
                           ? statusLine.at(1).toInt()
                           : 0;
        if (reply.status < 100 || reply.status > 599)
            return unreadable(QStringLiteral("the answer's status line does not read"));
        // 100 Continue, 103 Early Hints: the answer is still to come.
        if (reply.status < 200) {
            m_buffer.remove(0, end + 4);
            continue;
        }
        qsizetype length = 0;
        bool hasLength = false;
        bool chunked = false;
        bool close = false;
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const qsizetype colon = lines.at(i).indexOf(':');
            if (colon <= 0)
                continue;
            const QByteArray name = lines.at(i).left(colon).trimmed().toLower();
            const QByteArray value = lines.at(i).mid(colon + 1).trimmed();
            reply.headers.append({name, value});
            if (name == "content-length") {
                length = value.toLongLong(&hasLength);
                if (!hasLength || length < 0)
                    return unreadable(QStringLiteral("the answer's Content-Length does not read"));
            }
            if (name == "transfer-encoding" && value.toLower().contains("chunked"))
                chunked = true;
            if (name == "connection" && value.toLower() == "close")
                close = true;
        }
        m_buffer.remove(0, end + 4);
        if (chunked) {
            if (!readChunked(&reply, deadline))
                return reply;
        } else if (!hasLength && reply.status != 204 && reply.status != 304) {
            // No length given: the body runs to the connection's close.
            HttpReply toClose;
            while (fill(&toClose, deadline)) {
            }
            if (toClose.failure == HttpFailure::TimedOut) {
                disconnect();
                reply.status = 0;
                reply.failure = toClose.failure;
                reply.error = toClose.error;
                return reply;
            }
            reply.body = std::exchange(m_buffer, {});
            disconnect();
            return reply;
        } else {
            if (!fillTo(length, &reply, deadline))
                return reply;
            reply.body = m_buffer.left(length);
            m_buffer.remove(0, length);
        }
        // Bytes after the answer were sent unasked (a repeated answer), and an
        // answer whose end no length gave may go on: either would be read as
        // the answer to the next request.
        if (close || !m_buffer.isEmpty() || (!hasLength && !chunked))
            disconnect();
        return reply;
    }
}

HttpReply HttpClient::raw(const QByteArray &bytes)
{
    // One timeout for the whole call, reconnection included: the work a
    // call carries is leased for a bounded time.
    const Deadline deadline(m_timeoutMs);
    HttpReply reply;
    // A kept-alive connection the server has closed since (idle timeout, or
    // it went away) reads as end-of-file already, and one it has written to
    // unasked holds a stale answer: drop either before sending, so that a
    // request is only ever sent where its own answer will be read.
    if (m_fd >= 0 && unusable())
        disconnect();
    bool sentBefore = false;
    for (int attempt = 0; attempt < 2; ++attempt) {
        const bool reused = m_fd >= 0;
        if (!connectIfNeeded(&reply, deadline)) {
            // The first try was sent: the server may have acted on it
            // before it closed, whatever the reconnection finds.
            if (sentBefore) {
                reply.failure = HttpFailure::Closed;
                reply.error =
                    QStringLiteral("sent, then the connection closed: %1").arg(reply.error);
            }
            return reply;
        }
        const bool sent = send(bytes, deadline);
        reply.resent = attempt == 1;
        if (sent) {
            sentBefore = true;
            m_answerStarted = false;
            reply = readReply(deadline);
            reply.resent = attempt == 1;
            // Only a kept-alive connection the server had closed before
            // answering a byte is worth a second try, while time is left; a
            // fresh one, or an answer cut short, may have been acted on.
            if (reply.status != 0 || attempt == 1 || !reused || m_answerStarted ||
                reply.failure == HttpFailure::TimedOut || deadline.passed())
                return reply;
        }
        if (!sent) {
            // Part of the request may be out: in doubt, and sent again only
            // where a kept-alive connection turned out closed, while time is left.
            const bool outOfTime = deadline.passed();
            reply.failure = outOfTime ? HttpFailure::TimedOut : HttpFailure::Closed;
            reply.error = outOfTime ? QStringLiteral("timed out while sending")
                                    : QStringLiteral("connection closed while sending");
            if (outOfTime || !reused) {
                disconnect();
                return reply;
            }
        }
        // A keep-alive connection the server had closed: reconnect once.
        disconnect();
    }
    return reply;
}

HttpReply HttpClient::request(const QByteArray &method, const QByteArray &path,
                              const Headers &headers, const QByteArray &body)
{
    // The authority as the URL gave it: an IPv6 address in brackets, and a
    // port the scheme would not imply.
    QByteArray authority =
        m_host.contains(u':') ? '[' + m_host.toLatin1() + ']' : m_host.toLatin1();
    if (m_port != (m_tlsWanted ? 443 : 80))
        authority += ':' + QByteArray::number(m_port);
    QByteArray message = method + ' ' + path + " HTTP/1.1\r\nHost: " + authority + "\r\n";
    for (const auto &[name, value] : headers)
        message += name + ": " + value + "\r\n";
    if (!body.isEmpty() || method == "POST")
        message += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    message += "\r\n" + body;
    return raw(message);
}

} // namespace keel
