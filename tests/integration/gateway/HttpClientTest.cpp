// keel's HTTP client (saga participants, merchant notifications, the channel)
// against a peer that misbehaves on a kept-alive connection.

#include "DrippingPeer.h"

#include "core/net/HttpClient.h"
#include "core/net/HttpRequest.h"
#include "core/net/HttpResponse.h"
#include "core/net/HttpServer.h"

#include <QElapsedTimer>

#include <gtest/gtest.h>

#include <atomic>
#include <netinet/in.h>
#include <poll.h>
#include <semaphore>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace keel;

namespace {

// Answers every request twice; each answer's body is the number of the
// request it answers.
class RepeatingPeer final : public HttpHandler {
public:
    RepeatingPeer() : m_server(HttpServerOptions{}, *this) { m_ok = bool(m_server.start()); }
    ~RepeatingPeer() override { m_server.stop(); }
    bool ok() const { return m_ok; }
    int port() const { return m_server.port(); }

    HttpResponse handle(const HttpRequest &) override
    {
        HttpResponse answer = jsonResponse(200, QByteArray::number(++m_requests));
        answer.repeated = true;
        return answer;
    }
    HttpResponse refuse(HttpRefusal) override { return jsonResponse(400, "{}"); }

private:
    std::atomic<int> m_requests{0};
    HttpServer m_server;
    bool m_ok = false;
};

// Answers with the Host header it was sent.
class HostEcho final : public HttpHandler {
public:
    HostEcho() : m_server(HttpServerOptions{}, *this) { m_ok = bool(m_server.start()); }
    ~HostEcho() override { m_server.stop(); }
    bool ok() const { return m_ok; }
    int port() const { return m_server.port(); }

    HttpResponse handle(const HttpRequest &request) override
    {
        return jsonResponse(200, request.header("host").value_or(QByteArray()));
    }
    HttpResponse refuse(HttpRefusal) override { return jsonResponse(400, "{}"); }

private:
    HttpServer m_server;
    bool m_ok = false;
};

// Everything the peer sends within `ms` after one raw request.
QByteArray rawExchange(int port, int ms)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(quint16(port));
    QByteArray received;
    if (::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0) {
        const QByteArray request = "GET / HTTP/1.1\r\nHost: peer\r\n\r\n";
        (void)::send(fd, request.constData(), size_t(request.size()), MSG_NOSIGNAL);
        pollfd waiting{fd, POLLIN, 0};
        char chunk[4096];
        while (::poll(&waiting, 1, ms) > 0) {
            const ssize_t got = ::recv(fd, chunk, sizeof chunk, 0);
            if (got <= 0)
                break;
            received.append(chunk, qsizetype(got));
        }
    }
    ::close(fd);
    return received;
}

int loopbackListener()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0 ||
        ::listen(fd, 4) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

// Reads one request's head; false at end-of-file (the client let go).
bool readRequest(int fd)
{
    QByteArray head;
    char byte;
    while (!head.endsWith("\r\n\r\n")) {
        if (::recv(fd, &byte, 1, 0) != 1)
            return false;
        head.append(byte);
    }
    return true;
}

void answer(int fd, int number)
{
    const QByteArray body = QByteArray::number(number);
    const QByteArray message =
        "HTTP/1.1 200 OK\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
    (void)::send(fd, message.constData(), size_t(message.size()), MSG_NOSIGNAL);
}

// Answers its first request, then, when the test says so, repeats that
// answer unasked on the same connection; the next request (on that
// connection or a new one) gets answer 2. On loopback a sent answer is in
// the client's socket by the time send() returns, so the test knows the
// stale bytes are there before it asks again.
class PacedPeer {
public:
    PacedPeer() : m_listener(loopbackListener())
    {
        if (m_listener >= 0)
            m_thread = std::thread([this] { serve(); });
    }
    ~PacedPeer()
    {
        m_release.release();
        ::shutdown(m_listener, SHUT_RDWR);
        if (m_thread.joinable())
            m_thread.join();
        ::close(m_listener);
    }

    int port() const
    {
        sockaddr_in address{};
        socklen_t size = sizeof address;
        if (m_listener < 0 ||
            ::getsockname(m_listener, reinterpret_cast<sockaddr *>(&address), &size) != 0)
            return 0;
        return ntohs(address.sin_port);
    }

    void repeatNow()
    {
        m_release.release();
        m_repeated.acquire();
    }

private:
    void serve()
    {
        const int first = ::accept(m_listener, nullptr, nullptr);
        if (first < 0)
            return;
        if (readRequest(first))
            answer(first, 1);
        m_release.acquire();
        answer(first, 1);
        m_repeated.release();
        const int next = readRequest(first) ? first : ::accept(m_listener, nullptr, nullptr);
        if (next >= 0 && (next == first || readRequest(next)))
            answer(next, 2);
        if (next != first && next >= 0)
            ::close(next);
        ::close(first);
    }

    int m_listener = -1;
    std::binary_semaphore m_release{0};
    std::binary_semaphore m_repeated{0};
    std::thread m_thread;
};

} // namespace

// The server really repeats an answer marked so (the saga tests' participant
// relies on it to repeat itself).
TEST(HttpClientTest, ARepeatedAnswerIsSentTwice)
{
    RepeatingPeer peer;
    ASSERT_TRUE(peer.ok());
    EXPECT_EQ(rawExchange(peer.port(), 300).count("HTTP/1.1 200"), 2);
}

// A stale answer left on a kept-alive connection (a peer or proxy that
// repeated itself) must never be taken as the answer to the next request:
// a saga step would be told the outcome of another call.
TEST(HttpClientTest, AnAnswerRepeatedByThePeerIsNeverTakenForTheNextRequest)
{
    PacedPeer peer;
    ASSERT_NE(peer.port(), 0);
    HttpClient client(QStringLiteral("127.0.0.1"), peer.port(), 5000);
    const HttpReply first = client.request("GET", "/first");
    ASSERT_EQ(first.status, 200) << qPrintable(first.error);
    EXPECT_EQ(first.body, "1");
    // The repeated answer is in the client's socket before the next request.
    peer.repeatNow();
    const HttpReply second = client.request("GET", "/second");
    ASSERT_EQ(second.status, 200) << qPrintable(second.error);
    EXPECT_EQ(second.body, "2") << "the first request's repeated answer was read as the second's";
}

// A virtual host on a port the scheme does not imply is named with its port,
// as RFC 9110 asks; a proxy or a host routing by name needs it.
TEST(HttpClientTest, TheHostHeaderNamesAPortTheSchemeDoesNotImply)
{
    HostEcho peer;
    ASSERT_TRUE(peer.ok());
    HttpClient client(QStringLiteral("localhost"), peer.port(), 5000);
    const HttpReply reply = client.request("GET", "/");
    ASSERT_EQ(reply.status, 200) << qPrintable(reply.error);
    EXPECT_EQ(reply.body, "localhost:" + QByteArray::number(peer.port()));
}

// A peer that answers a byte every 100 ms is never silent for the 1 s
// timeout, yet its answer would take minutes: the timeout bounds the whole
// call (a notification or a saga step is leased for a bounded time), and a
// call cut short is in doubt, never an answer.
TEST(HttpClientTest, APeerThatDripsItsAnswerIsCutOffAtTheTimeout)
{
    test::DrippingPeer peer("HTTP/1.1 200 OK\r\n",
                            "Content-Length: 2\r\n\r\nok" + QByteArray(4000, ' '), 100);
    ASSERT_NE(peer.port(), 0);
    HttpClient client(QStringLiteral("127.0.0.1"), peer.port(), 1000);
    QElapsedTimer timer;
    timer.start();
    const HttpReply reply = client.request("POST", "/notify", {}, "{}");
    const qint64 waited = timer.elapsed();
    EXPECT_EQ(reply.status, 0);
    EXPECT_EQ(reply.failure, HttpFailure::TimedOut) << qPrintable(reply.error);
    EXPECT_GE(waited, 900);
    EXPECT_LT(waited, 3000);
}

// What a peer answers, sent at once to the first request, then the close.
static HttpReply answerTo(const QByteArray &answer)
{
    test::DrippingPeer peer(answer, {}, 0);
    HttpClient client(QStringLiteral("127.0.0.1"), peer.port(), 3000);
    return client.request("POST", "/step", {}, "{}");
}

// 103 Early Hints (or 100 Continue) announces the answer; it is not it.
TEST(HttpClientTest, AnInterimAnswerIsSkippedForTheAnswerItAnnounces)
{
    const HttpReply reply = answerTo("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                                     "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    EXPECT_EQ(reply.status, 200) << qPrintable(reply.error);
    EXPECT_EQ(reply.body, "ok");
}

// A participant's DTM result may come chunked: read whole, it still decides.
TEST(HttpClientTest, AChunkedAnswerIsReadWhole)
{
    const HttpReply reply =
        answerTo("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                 "4\r\n{\"dt\r\n14;ext=1\r\nm_result\":\"FAILURE\"}\r\n0\r\nTrailer: x\r\n\r\n");
    EXPECT_EQ(reply.status, 200) << qPrintable(reply.error);
    EXPECT_EQ(reply.body, "{\"dtm_result\":\"FAILURE\"}");
}

TEST(HttpClientTest, AnAnswerWithoutALengthRunsToTheClose)
{
    const HttpReply reply = answerTo("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nsuccess");
    EXPECT_EQ(reply.status, 200) << qPrintable(reply.error);
    EXPECT_EQ(reply.body, "success");
}

// Something came back that is not HTTP: the request went out and may have
// been acted on, so the call is in doubt (Closed), never "not sent".
TEST(HttpClientTest, AnAnswerThatDoesNotReadIsInDoubtNotUnsent)
{
    const HttpReply reply = answerTo("SSH-2.0-OpenSSH_9.2\r\n\r\n");
    EXPECT_EQ(reply.status, 0);
    EXPECT_EQ(reply.failure, HttpFailure::Closed) << qPrintable(reply.error);
}
