// A `keel gateway` process facing more connections than it has any use for,
// on loopback: ten thousand that never send a byte, clients that send their
// headers one byte a second (slow loris), and a gateway out of file
// descriptors. Payments keep being answered, the idle and the slow are cut
// off by the read timeout, and a gateway at its limit keeps descriptors spare
// for its database and does not make the accepting thread spin.

#include "GatewayTest.h"
#include "KeelProcess.h"
#include "WaitUntil.h"

#include <QDir>
#include <QFile>
#include <QProcess>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

namespace keel::test {
namespace {

const QByteArray Charge = "amount=1200&currency=usd&source=tok_visa";

// Raw sockets held open by the test; closed when it goes.
class Crowd {
public:
    ~Crowd()
    {
        for (const int fd : m_fds)
            ::close(fd);
    }
    // Connects `count` sockets to 127.0.0.1:port without sending anything.
    int connectIdle(int port, int count)
    {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(quint16(port));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        int connected = 0;
        for (int i = 0; i < count; ++i) {
            const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
            if (fd < 0)
                break;
            const int result =
                ::connect(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address);
            if (result != 0 && errno != EINPROGRESS) {
                ::close(fd);
                continue;
            }
            m_fds.push_back(fd);
            ++connected;
        }
        return connected;
    }
    // Sends one more byte of an unfinished request on every socket.
    void trickle(const char byte)
    {
        for (const int fd : m_fds)
            (void)::send(fd, &byte, 1, MSG_NOSIGNAL);
    }
    // How many the server has closed (a read sees end of stream or a reset).
    int closedByServer() const
    {
        int closed = 0;
        for (const int fd : m_fds) {
            char buffer[256];
            const ssize_t got = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
            if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
                ++closed;
        }
        return closed;
    }
    int size() const { return int(m_fds.size()); }

private:
    std::vector<int> m_fds;
};

// CPU seconds a process has used (user + system), from /proc.
double cpuSeconds(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray line = stat.readAll();
    const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
    return double(fields.value(11).toLongLong() + fields.value(12).toLongLong()) /
           double(::sysconf(_SC_CLK_TCK));
}

int openDescriptors(qint64 pid)
{
    return int(QDir(QStringLiteral("/proc/%1/fd").arg(pid)).entryList(QDir::NoDotAndDotDot).size());
}

int portOf(const QString &url)
{
    QString host;
    int port = 0;
    HttpClient::parseUrl(url, &host, &port);
    return port;
}

class GatewayFloodTest : public GatewayTest {
protected:
    void SetUp() override
    {
        GatewayTest::SetUp();
        // The test itself holds ten thousand sockets.
        rlimit limit{};
        ::getrlimit(RLIMIT_NOFILE, &limit);
        limit.rlim_cur = limit.rlim_max;
        ::setrlimit(RLIMIT_NOFILE, &limit);
        m_descriptors = limit.rlim_cur;
    }
    rlim_t m_descriptors = 0;
};

TEST_F(GatewayFloodTest, TenThousandIdleConnectionsAndSlowLorisClientsDoNotStopPayments)
{
    ASSERT_GE(m_descriptors, rlim_t(10500)) << "this machine allows too few open files";
    QString url;
    auto gateway = spawnGateway({QStringLiteral("--threads"), QStringLiteral("4")}, &url);
    ASSERT_FALSE(url.isEmpty());
    auto regular = clientFor(url, 10000);
    ASSERT_EQ(post("/v1/charges", Charge, "flood-before", {}, regular.get()).status, 200);

    Crowd idle, slow;
    ASSERT_EQ(idle.connectIdle(portOf(url), 10000), 10000);
    ASSERT_EQ(slow.connectIdle(portOf(url), 100), 100);
    slow.trickle('P');
    // The gateway takes every one of them (descriptors raised to the hard limit).
    EXPECT_TRUE(waitUntil([&] { return openDescriptors(gateway->processId()) > 10000; }, 20000))
        << openDescriptors(gateway->processId());
    // Payments go on, over a connection made before the crowd and a new one.
    EXPECT_EQ(post("/v1/charges", Charge, "flood-during-1", {}, regular.get()).status, 200);
    auto newcomer = clientFor(url, 10000);
    EXPECT_EQ(post("/v1/charges", Charge, "flood-during-2", {}, newcomer.get()).status, 200);
    // The slow clients trickle a byte a second; the read timeout (10 s for a
    // whole request) ends them, and the idle ones, whatever they send.
    const bool cutOff = waitUntil(
        [&] {
            slow.trickle('O');
            QThread::msleep(1000);
            return slow.closedByServer() == slow.size() && idle.closedByServer() == idle.size();
        },
        30000);
    EXPECT_TRUE(cutOff) << slow.closedByServer() << " of the slow and " << idle.closedByServer()
                        << " of the idle were closed";
    EXPECT_TRUE(waitUntil([&] { return openDescriptors(gateway->processId()) < 200; }, 10000))
        << "the gateway let go of them: " << openDescriptors(gateway->processId());
    EXPECT_EQ(post("/v1/charges", Charge, "flood-after", {}, newcomer.get()).status, 200);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QStringLiteral("4"));
}

TEST_F(GatewayFloodTest, AFloodedGatewayKeepsDescriptorsSpareAndWaitsWithoutSpinning)
{
    // A gateway allowed 128 descriptors in all, then twice that many connections.
    QProcess gateway;
    gateway.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    gateway.setChildProcessModifier([] {
        const rlimit few{128, 128};
        ::setrlimit(RLIMIT_NOFILE, &few);
    });
    gateway.start(keelBinary(),
                  {QStringLiteral("gateway"), QStringLiteral("--db"), settings().conninfo(),
                   QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                   QStringLiteral("--threads"), QStringLiteral("2")});
    QString url;
    ASSERT_TRUE(waitUntil(
        [&] {
            gateway.waitForReadyRead(50);
            while (gateway.canReadLine()) {
                const QString line = QString::fromLocal8Bit(gateway.readLine()).trimmed();
                if (line.startsWith(QLatin1String("KEEL_HTTP=")))
                    url = line.mid(10);
            }
            return !url.isEmpty();
        },
        20000));
    auto regular = clientFor(url, 10000);
    ASSERT_EQ(post("/v1/charges", Charge, "starved-before", {}, regular.get()).status, 200);
    {
        Crowd crowd;
        ASSERT_EQ(crowd.connectIdle(portOf(url), 256), 256);
        // It takes clients until only its spare descriptors are left (64 by
        // default), and the rest wait in the backlog.
        int taken = 0;
        ASSERT_TRUE(waitUntil(
            [&] {
                const int before = openDescriptors(gateway.processId());
                QThread::msleep(500);
                taken = openDescriptors(gateway.processId());
                return taken == before && taken > 40;
            },
            10000))
            << taken;
        // At its limit for three seconds: an accept loop retrying at once
        // would burn a core for all of it.
        const double before = cpuSeconds(gateway.processId());
        QThread::msleep(3000);
        const double used = cpuSeconds(gateway.processId()) - before;
        EXPECT_LT(used, 0.5) << "CPU seconds used in 3 s at the connection limit";
        // A connection made before keeps being served, and the database can
        // still be reached: no client took the descriptors it needs.
        EXPECT_EQ(post("/v1/charges", Charge, "starved-during", {}, regular.get()).status, 200);
        EXPECT_LE(openDescriptors(gateway.processId()), 128 - 48)
            << "the spare descriptors stay free";
    }
    // Once the crowd leaves (and the rest time out), new clients get in again.
    EXPECT_TRUE(waitUntil(
        [&] {
            auto newcomer = clientFor(url, 2000);
            return post("/v1/charges", Charge, "starved-after", {}, newcomer.get()).status == 200;
        },
        30000));
    gateway.kill();
    gateway.waitForFinished();
}

} // namespace
} // namespace keel::test
