#include "core/net/HttpServer.h"

#include "core/net/HttpRequest.h"
#include "core/net/HttpResponse.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <sys/resource.h>

#include <QDir>

#include <array>
#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

namespace keel {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

namespace {

http::response<http::string_body> toBeast(const HttpResponse &response, unsigned version,
                                          bool keepAlive)
{
    http::response<http::string_body> out{http::status(unsigned(response.status)), version};
    out.set(http::field::server, "keel");
    for (const auto &[name, value] : response.headers)
        out.set(beast::string_view(name.constData(), size_t(name.size())),
                beast::string_view(value.constData(), size_t(value.size())));
    out.body().assign(response.body.constData(), size_t(response.body.size()));
    out.keep_alive(keepAlive);
    out.prepare_payload();
    return out;
}

// One client's connection, plain (beast::tcp_stream) or over TLS (TlsStream).
template <class Stream>
class Connection : public std::enable_shared_from_this<Connection<Stream>> {
    static constexpr bool Tls = std::is_same_v<Stream, TlsStream>;

public:
    template <class... StreamArguments>
    Connection(const HttpServerOptions &options, HttpHandler &handler,
               std::shared_ptr<std::atomic<int>> open, StreamArguments &&...stream)
        : m_stream(std::forward<StreamArguments>(stream)...), m_options(options),
          m_handler(handler), m_open(std::move(open))
    {
        ++*m_open;
    }
    ~Connection() { --*m_open; }
    Q_DISABLE_COPY_MOVE(Connection)

    void start()
    {
        // Accepted on the accepting thread; everything after runs on the socket's own.
        asio::post(m_stream.get_executor(), [self = this->shared_from_this()] {
            if constexpr (Tls)
                self->handshake();
            else
                self->read(true);
        });
    }

private:
    using std::enable_shared_from_this<Connection<Stream>>::shared_from_this;

    beast::tcp_stream &tcpLayer() { return beast::get_lowest_layer(m_stream); }

    // A client has as long to finish the handshake as to send its first request.
    void handshake()
    {
        tcpLayer().expires_after(std::chrono::seconds(m_options.readTimeoutSeconds));
        m_stream.async_handshake(asio::ssl::stream_base::server,
                                 [self = shared_from_this()](beast::error_code ec) {
                                     if (ec) {
                                         beast::error_code ignored;
                                         self->tcpLayer().socket().close(ignored);
                                         return;
                                     }
                                     self->read(true);
                                 });
    }

    void read(bool first)
    {
        m_parser.emplace();
        m_parser->body_limit(std::uint64_t(m_options.maxBodyBytes));
        m_parser->header_limit(std::uint32_t(m_options.maxHeaderBytes));
        tcpLayer().expires_after(std::chrono::seconds(first ? m_options.readTimeoutSeconds
                                                            : m_options.idleTimeoutSeconds));
        http::async_read(
            m_stream, m_buffer, *m_parser,
            [self = shared_from_this()](beast::error_code ec, std::size_t) { self->onRead(ec); });
    }

    void onRead(beast::error_code ec)
    {
        if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
            ec == asio::error::operation_aborted || ec == asio::error::connection_reset ||
            ec == asio::error::eof || ec == asio::ssl::error::stream_truncated) {
            close();
            return;
        }
        if (ec == http::error::body_limit) {
            refuse(HttpRefusal::BodyTooLarge);
            return;
        }
        if (ec == http::error::header_limit) {
            refuse(HttpRefusal::HeadersTooLarge);
            return;
        }
        if (ec) {
            refuse(HttpRefusal::Malformed);
            return;
        }
        const http::request<http::string_body> &in = m_parser->get();
        HttpRequest request;
        request.method =
            QByteArray(in.method_string().data(), qsizetype(in.method_string().size()));
        const QByteArray target(in.target().data(), qsizetype(in.target().size()));
        const qsizetype question = target.indexOf('?');
        request.path = question < 0 ? target : target.left(question);
        request.query = question < 0 ? QByteArray() : target.mid(question + 1);
        for (const auto &field : in) {
            request.headers.append(
                {QByteArray(field.name_string().data(), qsizetype(field.name_string().size()))
                     .toLower(),
                 QByteArray(field.value().data(), qsizetype(field.value().size()))});
        }
        request.body = QByteArray(in.body().data(), qsizetype(in.body().size()));
        // No timeout while the handler works: it is bounded by the database.
        tcpLayer().expires_never();
        reply(m_handler.handle(request), in.version(), in.keep_alive());
    }

    // A request refused before it was read whole: the client may still be
    // sending its body, so the connection lingers after the answer.
    void refuse(HttpRefusal why)
    {
        m_lingerAfterReply = true;
        reply(m_handler.refuse(why), 11, false);
    }

    void reply(const HttpResponse &response, unsigned version, bool keepAlive)
    {
        if (response.withheld) {
            close();
            return;
        }
        auto message = std::make_shared<http::response<http::string_body>>(
            toBeast(response, version, keepAlive));
        tcpLayer().expires_after(std::chrono::seconds(m_options.readTimeoutSeconds));
        write(message, response.repeated ? 2 : 1);
    }

    void write(const std::shared_ptr<http::response<http::string_body>> &message, int copies)
    {
        http::async_write(
            m_stream, *message,
            [self = shared_from_this(), message, copies](beast::error_code ec, std::size_t) {
                if (!ec && copies > 1) {
                    self->write(message, copies - 1);
                    return;
                }
                if (!ec && self->m_lingerAfterReply) {
                    self->lingerThenClose();
                    return;
                }
                if (ec || !message->keep_alive()) {
                    self->close();
                    return;
                }
                self->read(false);
            });
    }

    // Over TLS too the TCP connection is half-closed without a close_notify:
    // every answer carries its length, so none can be cut short unnoticed.
    void close()
    {
        beast::error_code ignored;
        tcpLayer().socket().shutdown(tcp::socket::shutdown_send, ignored);
    }

    // Closing a socket with unread data makes the kernel reset the
    // connection, and a client still sending then loses the answer already
    // sent (it sees only a network error). So after the answer the server
    // stops sending, reads and discards what still comes until the client
    // closes, for a few seconds at most, then closes.
    void lingerThenClose()
    {
        close();
        m_lingerUntil = std::chrono::steady_clock::now() + std::chrono::seconds(LingerSeconds);
        discard();
    }

    void discard()
    {
        tcpLayer().expires_at(m_lingerUntil);
        m_stream.async_read_some(asio::buffer(m_discard),
                                 [self = shared_from_this()](beast::error_code ec, std::size_t) {
                                     if (ec) {
                                         beast::error_code ignored;
                                         self->tcpLayer().socket().close(ignored);
                                         return;
                                     }
                                     self->discard();
                                 });
    }

    static constexpr int LingerSeconds = 5;
    bool m_lingerAfterReply = false;
    std::chrono::steady_clock::time_point m_lingerUntil;
    std::array<char, 16384> m_discard{};

    Stream m_stream;
    beast::flat_buffer m_buffer;
    std::optional<http::request_parser<http::string_body>> m_parser;
    const HttpServerOptions &m_options;
    HttpHandler &m_handler;
    // Shared with the server, as a connection may be torn down after it.
    std::shared_ptr<std::atomic<int>> m_open;
};

// Descriptors this process has open now (Linux).
int openDescriptors()
{
    return int(QDir(QStringLiteral("/proc/self/fd")).entryList(QDir::NoDotAndDotDot).size());
}

} // namespace

// One event loop per worker thread, each serving the connections handed to
// it, and one more that only accepts. A connection's reads, handler and writes
// all run on its own thread: no hand-off between threads per request, which on
// a small machine cost more than the request's own work (a shared pool woke
// another thread for every completion).
struct HttpServer::Impl {
    explicit Impl(HttpHandler &h) : handler(h) {}
    HttpServerOptions options;
    HttpHandler &handler;
    std::optional<asio::ssl::context> tls; // outlives every connection that uses it
    // Declared so that they are destroyed in the safe order: a pending accept
    // holds a socket of a worker's loop, so the accepting loop goes first.
    std::vector<std::unique_ptr<asio::io_context>> workers;
    std::vector<asio::executor_work_guard<asio::io_context::executor_type>> keepRunning;
    asio::io_context accepting{1};
    asio::steady_timer pause{accepting};
    std::optional<tcp::acceptor> acceptor;
    std::vector<std::thread> threads;
    size_t next = 0;
    int port = 0;
    std::atomic<int> accepted{0};
    std::shared_ptr<std::atomic<int>> open = std::make_shared<std::atomic<int>>(0);
    int limit = 1;

    Status useTls();

    // Accepting again once a descriptor may be free: at once would only
    // spin until one is.
    void acceptLater()
    {
        pause.expires_after(std::chrono::milliseconds(100));
        pause.async_wait([this](beast::error_code waited) {
            if (!waited)
                accept();
        });
    }

    void accept()
    {
        if (open->load() >= limit) {
            acceptLater();
            return;
        }
        asio::io_context &worker = *workers[next++ % workers.size()];
        acceptor->async_accept(worker, [this](beast::error_code ec, tcp::socket socket) {
            if (ec == asio::error::operation_aborted)
                return;
            if (ec) {
                // Out of file descriptors all the same (something else took
                // the spare ones): the connection waits in the backlog.
                acceptLater();
                return;
            }
            beast::error_code ignored; // a peer that already left is dealt with by the read
            socket.set_option(tcp::no_delay(true), ignored);
            ++accepted;
            if (tls)
                std::make_shared<Connection<TlsStream>>(options, handler, open, std::move(socket),
                                                        *tls)
                    ->start();
            else
                std::make_shared<Connection<beast::tcp_stream>>(options, handler, open,
                                                                std::move(socket))
                    ->start();
            accept();
        });
    }
};

HttpServer::HttpServer(HttpServerOptions options, HttpHandler &handler)
    : m_impl(std::make_unique<Impl>(handler))
{
    m_impl->options = std::move(options);
}

HttpServer::~HttpServer()
{
    stop();
}

// TLS 1.2 or later with the certificate chain and key the deployment gave.
Status HttpServer::Impl::useTls()
{
    tls.emplace(asio::ssl::context::tls_server);
    tls->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                     asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                     asio::ssl::context::no_tlsv1_1);
    beast::error_code ec;
    tls->use_certificate_chain_file(options.tlsCertificateFile.toStdString(), ec);
    if (ec)
        return fieldError(
            QStringLiteral("tls-cert"), QStringLiteral("parameter_invalid"),
            QStringLiteral("cannot read the certificate chain %1: %2")
                .arg(options.tlsCertificateFile, QString::fromStdString(ec.message())));
    tls->use_private_key_file(options.tlsKeyFile.toStdString(), asio::ssl::context::pem, ec);
    if (ec)
        return fieldError(QStringLiteral("tls-key"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("cannot use the private key %1: %2")
                              .arg(options.tlsKeyFile, QString::fromStdString(ec.message())));
    return {};
}

Status HttpServer::start()
{
    if (m_impl->options.tlsCertificateFile.isEmpty() != m_impl->options.tlsKeyFile.isEmpty())
        return fieldError(QStringLiteral("tls-cert"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("--tls-cert and --tls-key go together"));
    if (!m_impl->options.tlsCertificateFile.isEmpty())
        if (Status tls = m_impl->useTls(); !tls)
            return tls;
    beast::error_code ec;
    const auto address = asio::ip::make_address(m_impl->options.host.toStdString(), ec);
    if (ec)
        return fieldError(QStringLiteral("listen"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("%1 is not an IP address").arg(m_impl->options.host));
    const tcp::endpoint endpoint(address, static_cast<unsigned short>(m_impl->options.port));
    m_impl->acceptor.emplace(m_impl->accepting);
    m_impl->acceptor->open(endpoint.protocol(), ec);
    if (!ec)
        m_impl->acceptor->set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec)
        m_impl->acceptor->bind(endpoint, ec);
    if (!ec)
        m_impl->acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
        return makeError(ErrorKind::Environment,
                         QStringLiteral("cannot listen on %1:%2: %3; choose another --listen")
                             .arg(m_impl->options.host)
                             .arg(m_impl->options.port)
                             .arg(QString::fromStdString(ec.message())));
    m_impl->port = m_impl->acceptor->local_endpoint().port();
    rlimit descriptors{};
    ::getrlimit(RLIMIT_NOFILE, &descriptors);
    const rlim_t most = std::min<rlim_t>(descriptors.rlim_cur, 1 << 20);
    m_impl->limit = std::max(1, int(most) - openDescriptors() - m_impl->options.spareDescriptors);
    for (int i = 0; i < std::max(1, m_impl->options.threads); ++i) {
        m_impl->workers.push_back(std::make_unique<asio::io_context>(1));
        m_impl->keepRunning.push_back(asio::make_work_guard(*m_impl->workers.back()));
    }
    m_impl->accept();
    m_impl->threads.emplace_back([this] { m_impl->accepting.run(); });
    for (const auto &worker : m_impl->workers)
        m_impl->threads.emplace_back([context = worker.get()] { context->run(); });
    return {};
}

void HttpServer::stop()
{
    if (!m_impl || m_impl->threads.empty())
        return;
    asio::post(m_impl->accepting, [this] {
        beast::error_code ignored;
        m_impl->acceptor->close(ignored);
        m_impl->pause.cancel();
    });
    m_impl->accepting.stop();
    m_impl->keepRunning.clear();
    for (const auto &worker : m_impl->workers)
        worker->stop();
    for (std::thread &thread : m_impl->threads)
        thread.join();
    m_impl->threads.clear();
}

int HttpServer::port() const
{
    return m_impl->port;
}

int HttpServer::connectionsAccepted() const
{
    return m_impl->accepted.load();
}

int HttpServer::connectionLimit() const
{
    return m_impl->limit;
}

} // namespace keel
