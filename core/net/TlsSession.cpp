#include "core/net/TlsSession.h"

#include "core/net/Deadline.h"

#include <QUrl>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <mutex>

namespace keel {
namespace {

// One context for the process: loading the system's trust store is the
// expensive part of a session, and every session trusts the same roots.
struct ClientContext {
    std::mutex lock;
    std::shared_ptr<SSL_CTX> context;
    QString extraAuthority;
    // One context per target's own authority, made on first use.
    std::map<QString, std::shared_ptr<SSL_CTX>> byAuthority;
};

// Never destroyed: OpenSSL cleans itself up at exit, possibly before a
// static's destructor would free the context.
ClientContext &clientContext()
{
    static ClientContext *const shared = new ClientContext;
    return *shared;
}

QString lastSslError(const char *during)
{
    const unsigned long code = ERR_get_error();
    ERR_clear_error();
    if (code == 0)
        return QString::fromLatin1(during);
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    return QStringLiteral("%1: %2").arg(QLatin1String(during), QLatin1String(text));
}

// A fresh context trusting the system's roots and `caFile`, or the reason
// there is none.
std::shared_ptr<SSL_CTX> newContext(const QString &caFile, QString *error)
{
    std::shared_ptr<SSL_CTX> context(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
    if (!context) {
        *error = lastSslError("cannot create a TLS context");
        return nullptr;
    }
    SSL_CTX_set_min_proto_version(context.get(), TLS1_2_VERSION);
    SSL_CTX_set_verify(context.get(), SSL_VERIFY_PEER, nullptr);
    SSL_CTX_set_mode(context.get(), SSL_MODE_AUTO_RETRY);
    if (SSL_CTX_set_default_verify_paths(context.get()) != 1) {
        *error = lastSslError("cannot read the system's trust store");
        return nullptr;
    }
    if (!caFile.isEmpty() && SSL_CTX_load_verify_locations(
                                 context.get(), caFile.toLocal8Bit().constData(), nullptr) != 1) {
        *error = lastSslError(
            qPrintable(QStringLiteral("cannot read the authority file %1").arg(caFile)));
        return nullptr;
    }
    return context;
}

} // namespace

// The socket under a session and the end of the call now using it.
struct TlsSession::Socket {
    int fd = -1;
    Deadline deadline;
};

namespace {

// Whether the socket became ready for `events` before the deadline.
bool readyBefore(const TlsSession::Socket &socket, short events)
{
    pollfd waiting{socket.fd, events, 0};
    int ready;
    do // a signal is not the peer's silence: wait for what is left
        ready = ::poll(&waiting, 1, socket.deadline.remainingMs());
    while (ready < 0 && errno == EINTR);
    return ready > 0;
}

// One read or write of the socket BIO: it waits no longer than the call's
// deadline, however the peer paces its bytes; a passed deadline is a
// retry, which a session reports as WouldBlock.
template <class Io>
int withinDeadline(BIO *bio, short events, Io io)
{
    const auto *socket = static_cast<const TlsSession::Socket *>(BIO_get_data(bio));
    BIO_clear_retry_flags(bio);
    auto retry = [bio, events] {
        if (events == POLLOUT)
            BIO_set_retry_write(bio);
        else
            BIO_set_retry_read(bio);
    };
    for (;;) {
        if (!readyBefore(*socket, events)) {
            retry();
            return -1;
        }
        const ssize_t n = io(socket->fd);
        if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) &&
            !socket->deadline.passed()) {
            ::usleep(1000); // ready, yet refused: the kernel is short of memory
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            retry();
        return int(n);
    }
}

// OpenSSL's own socket BIO writes with send(fd, ..., 0): a peer that went
// away raises SIGPIPE, which would end the whole service. These write with
// MSG_NOSIGNAL.
int socketWrite(BIO *bio, const char *bytes, int size)
{
    return withinDeadline(bio, POLLOUT, [bytes, size](int fd) {
        return ::send(fd, bytes, size_t(size), MSG_NOSIGNAL | MSG_DONTWAIT);
    });
}

int socketRead(BIO *bio, char *into, int size)
{
    return withinDeadline(
        bio, POLLIN, [into, size](int fd) { return ::recv(fd, into, size_t(size), MSG_DONTWAIT); });
}

long socketControl(BIO *, int command, long, void *)
{
    return command == BIO_CTRL_FLUSH ? 1 : 0;
}

BIO_METHOD *socketMethod()
{
    static BIO_METHOD *const method = [] {
        BIO_METHOD *made = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "keel socket");
        BIO_meth_set_write(made, socketWrite);
        BIO_meth_set_read(made, socketRead);
        BIO_meth_set_ctrl(made, socketControl);
        return made;
    }();
    return method;
}

std::shared_ptr<SSL_CTX> currentContext(const QString &authority, QString *error)
{
    ClientContext &shared = clientContext();
    const std::lock_guard<std::mutex> held(shared.lock);
    if (!authority.isEmpty()) {
        std::shared_ptr<SSL_CTX> &own = shared.byAuthority[authority];
        if (!own)
            own = newContext(authority, error);
        return own;
    }
    if (!shared.context)
        shared.context = newContext(shared.extraAuthority, error);
    return shared.context;
}

} // namespace

struct TlsSession::Ssl {
    std::shared_ptr<SSL_CTX> context; // kept alive while the session is
    Socket socket;                    // the BIO's data
    SSL *ssl = nullptr;
    ~Ssl()
    {
        if (ssl)
            SSL_free(ssl);
    }
};

TlsSession::TlsSession() = default;
TlsSession::~TlsSession() = default;

QString TlsSession::trustAlso(const QString &caFile)
{
    QString error;
    std::shared_ptr<SSL_CTX> context = newContext(caFile, &error);
    if (!context)
        return error;
    ClientContext &shared = clientContext();
    const std::lock_guard<std::mutex> held(shared.lock);
    shared.extraAuthority = caFile;
    shared.context = std::move(context);
    return {};
}

QString TlsSession::checkAuthority(const QString &caFile)
{
    QString error;
    if (!currentContext(caFile, &error))
        return error;
    return {};
}

QString TlsSession::handshake(int fd, const QString &host, const Deadline &deadline,
                              const QString &authority)
{
    QString error;
    m_untrusted = false;
    auto ssl = std::make_unique<Ssl>();
    ssl->context = currentContext(authority, &error);
    if (!ssl->context)
        return error;
    ssl->ssl = SSL_new(ssl->context.get());
    BIO *socket = ssl->ssl ? BIO_new(socketMethod()) : nullptr;
    if (!socket)
        return lastSslError("cannot start TLS");
    ssl->socket = Socket{fd, deadline};
    BIO_set_data(socket, &ssl->socket);
    BIO_set_init(socket, 1);
    SSL_set_bio(ssl->ssl, socket, socket);
    // The name the certificate must carry is the one keel dialled; an
    // address is checked as an address, and is sent as no server name.
    const QByteArray ace = QUrl::toAce(host);
    const QByteArray name = ace.isEmpty() ? host.toLatin1() : ace;
    X509_VERIFY_PARAM *check = SSL_get0_param(ssl->ssl);
    in6_addr address;
    const bool isAddress = ::inet_pton(AF_INET, name.constData(), &address) == 1 ||
                           ::inet_pton(AF_INET6, name.constData(), &address) == 1;
    if (!isAddress) {
        // SSL_set_tlsext_host_name, without the macro's C cast.
        SSL_ctrl(ssl->ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                 const_cast<char *>(name.constData()));
        X509_VERIFY_PARAM_set_hostflags(check, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        if (X509_VERIFY_PARAM_set1_host(check, name.constData(), size_t(name.size())) != 1)
            return lastSslError("cannot check the server's name");
    } else if (X509_VERIFY_PARAM_set1_ip_asc(check, name.constData()) != 1) {
        return lastSslError("cannot check the server's address");
    }
    ERR_clear_error();
    const int done = SSL_connect(ssl->ssl);
    if (done != 1) {
        const int why = SSL_get_error(ssl->ssl, done);
        const long verified = SSL_get_verify_result(ssl->ssl);
        m_untrusted = verified != X509_V_OK;
        if (m_untrusted)
            return QStringLiteral("TLS: %1 is not trusted: %2")
                .arg(host, QLatin1String(X509_verify_cert_error_string(verified)));
        if (why == SSL_ERROR_WANT_READ || why == SSL_ERROR_WANT_WRITE)
            return QStringLiteral("TLS handshake with %1 timed out").arg(host);
        return lastSslError(qPrintable(QStringLiteral("TLS handshake with %1 failed").arg(host)));
    }
    m_ssl = std::move(ssl);
    return {};
}

TlsSession::Io TlsSession::write(const char *bytes, qsizetype size, const Deadline &deadline)
{
    m_ssl->socket.deadline = deadline;
    qsizetype sent = 0;
    while (sent < size) {
        ERR_clear_error();
        const int n =
            SSL_write(m_ssl->ssl, bytes + sent, int(std::min<qsizetype>(size - sent, 1 << 20)));
        if (n <= 0)
            return SSL_get_error(m_ssl->ssl, n) == SSL_ERROR_WANT_WRITE ? Io::WouldBlock
                                                                        : Io::Closed;
        sent += n;
    }
    return Io::Done;
}

TlsSession::Io TlsSession::read(char *into, qsizetype capacity, qsizetype *got,
                                const Deadline &deadline)
{
    m_ssl->socket.deadline = deadline;
    *got = 0;
    ERR_clear_error();
    const int n = SSL_read(m_ssl->ssl, into, int(std::min<qsizetype>(capacity, 1 << 20)));
    if (n > 0) {
        *got = n;
        return Io::Done;
    }
    const int why = SSL_get_error(m_ssl->ssl, n);
    return why == SSL_ERROR_WANT_READ || why == SSL_ERROR_WANT_WRITE ? Io::WouldBlock : Io::Closed;
}

bool TlsSession::pending() const
{
    return m_ssl && SSL_pending(m_ssl->ssl) > 0;
}

} // namespace keel
