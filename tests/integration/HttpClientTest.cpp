// keel's HTTP client (saga participants, merchant notifications, the channel)
// against peers that misbehave on a kept-alive connection.

#include "core/net/HttpClient.h"

#include <gtest/gtest.h>

#include <QByteArray>

#include <atomic>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace keel;

namespace {

// A peer on a loopback port that answers every request on a connection
// twice: each answer's body is the number of the request it answers.
class RepeatingPeer {
public:
    RepeatingPeer()
    {
        m_listener = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        address.sin_port = 0;
        ::bind(m_listener, reinterpret_cast<sockaddr *>(&address), sizeof address);
        ::listen(m_listener, 4);
        socklen_t length = sizeof address;
        ::getsockname(m_listener, reinterpret_cast<sockaddr *>(&address), &length);
        m_port = ntohs(address.sin_port);
        m_thread = std::thread([this] { serve(); });
    }
    ~RepeatingPeer()
    {
        ::shutdown(m_listener, SHUT_RDWR);
        ::close(m_listener);
        m_thread.join();
    }
    int port() const { return m_port; }
    int requests() const { return m_requests.load(); }

private:
    void serve()
    {
        for (;;) {
            const int connection = ::accept(m_listener, nullptr, nullptr);
            if (connection < 0)
                return;
            answerTwice(connection);
        }
    }

    void answerTwice(int connection)
    {
        QByteArray pending;
        char chunk[4096];
        for (;;) {
            const ssize_t got = ::recv(connection, chunk, sizeof chunk, 0);
            if (got <= 0)
                break;
            pending.append(chunk, qsizetype(got));
            qsizetype end;
            while ((end = pending.indexOf("\r\n\r\n")) >= 0) {
                pending.remove(0, end + 4);
                const QByteArray body = QByteArray::number(++m_requests);
                const QByteArray answer =
                    "HTTP/1.1 200 OK\r\nContent-Length: " + QByteArray::number(body.size()) +
                    "\r\n\r\n" + body;
                const QByteArray twice = answer + answer;
                (void)::send(connection, twice.constData(), size_t(twice.size()), MSG_NOSIGNAL);
            }
        }
        ::close(connection);
    }

    int m_listener = -1;
    int m_port = 0;
    std::atomic<int> m_requests{0};
    std::thread m_thread;
};

} // namespace

// A stale answer left on a kept-alive connection (a peer or proxy that
// repeated itself) must never be taken as the answer to the next request:
// a saga step would be told the outcome of another call.
TEST(HttpClientTest, AnAnswerRepeatedByThePeerIsNeverTakenForTheNextRequest)
{
    RepeatingPeer peer;
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
