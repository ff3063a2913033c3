// keel's HTTP client (saga participants, merchant notifications, the channel)
// against a peer that misbehaves on a kept-alive connection.

#include "core/net/HttpClient.h"
#include "core/net/HttpRequest.h"
#include "core/net/HttpResponse.h"
#include "core/net/HttpServer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <netinet/in.h>
#include <poll.h>
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

} // namespace

// The peer really repeats itself (else the test below proves nothing).
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
    RepeatingPeer peer;
    ASSERT_TRUE(peer.ok());
    HttpClient client(QStringLiteral("127.0.0.1"), peer.port(), 5000);
    const HttpReply first = client.request("GET", "/first");
    ASSERT_EQ(first.status, 200) << qPrintable(first.error);
    EXPECT_EQ(first.body, "1");
    // Let the repeated answer arrive before the next request is sent.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const HttpReply second = client.request("GET", "/second");
    ASSERT_EQ(second.status, 200) << qPrintable(second.error);
    EXPECT_EQ(second.body, "2") << "the first request's repeated answer was read as the second's";
}
