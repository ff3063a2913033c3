#pragma once

#include "core/Result.h"

#include <QString>

#include <memory>

namespace keel {

struct HttpResponse;
struct HttpRequest;

// Why the server answered a request without handing it on.
enum class HttpRefusal { BodyTooLarge, HeadersTooLarge, Malformed };

// What a server serves: the application behind it renders every answer,
// including the refusals the transport decides on, in its own wire format.
class HttpHandler {
public:
    virtual ~HttpHandler() = default;
    virtual HttpResponse handle(const HttpRequest &request) = 0;
    virtual HttpResponse refuse(HttpRefusal refusal) = 0;
};

struct HttpServerOptions {
    QString host = QStringLiteral("127.0.0.1");
    int port = 0;    // 0: any free port (see HttpServer::port())
    int threads = 8; // worker threads; connections are spread over them, one thread each
    int maxBodyBytes = 64 * 1024;
    int maxHeaderBytes = 16 * 1024;
    int readTimeoutSeconds = 10; // a request must arrive whole within this
    int idleTimeoutSeconds = 60; // a keep-alive connection may sit idle this long
    // Descriptors never given to clients: a flood that took the last one
    // would leave the process unable to reach its database, write a file or
    // open a pipe. Clients beyond the rest wait in the listen backlog.
    int spareDescriptors = 64;
    // PEM files: serve HTTPS (TLS 1.2 or later) with this chain and key.
    // Both empty: plain HTTP.
    QString tlsCertificateFile;
    QString tlsKeyFile;
};

// HTTP/1.1 with keep-alive on Boost.Beast, over TLS when the options name a
// certificate and key. Each accepted connection belongs
// to one worker thread (round robin), where its handler runs and may block
// (database calls): requests on connections sharing a thread wait for each
// other, so --threads should be at least the number of clients that send at
// once. Oversized bodies get 413, oversized headers 431, malformed requests
// 400, slow or idle clients are disconnected.
class HttpServer final {
public:
    // `handler` must outlive the server; it is called on the worker threads.
    HttpServer(HttpServerOptions options, HttpHandler &handler);
    ~HttpServer();
    Q_DISABLE_COPY_MOVE(HttpServer)

    Status start();
    void stop();
    int port() const;
    // Connections taken since start (keep-alive reuse shows as few).
    int connectionsAccepted() const;
    // How many clients may be connected at once: the descriptors the process
    // may open, less those open at start and the spare ones.
    int connectionLimit() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace keel
