#include "DrippingPeer.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace keel::test {

DrippingPeer::DrippingPeer(QByteArray head, QByteArray drip, int intervalMs)
    : m_head(std::move(head)), m_drip(std::move(drip)), m_intervalMs(intervalMs)
{
    m_listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    if (m_listener < 0 ||
        ::bind(m_listener, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0 ||
        ::listen(m_listener, 4) != 0 ||
        ::getsockname(m_listener, reinterpret_cast<sockaddr *>(&address), &size) != 0)
        return;
    m_port = ntohs(address.sin_port);
    m_thread = std::thread([this] { serve(); });
}

DrippingPeer::~DrippingPeer()
{
    m_stopping = true;
    ::shutdown(m_listener, SHUT_RDWR);
    if (m_thread.joinable())
        m_thread.join();
    if (m_listener >= 0)
        ::close(m_listener);
}

void DrippingPeer::serve()
{
    const int fd = ::accept(m_listener, nullptr, nullptr);
    if (fd < 0)
        return;
    // The client speaks first (a request, or a TLS hello); its bytes are
    // read and dropped so that its sends never block.
    auto drain = [fd] {
        char sink[4096];
        while (::recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0) {
        }
    };
    pollfd readable{fd, POLLIN, 0};
    while (!m_stopping && ::poll(&readable, 1, 50) == 0) {
    }
    drain();
    (void)::send(fd, m_head.constData(), size_t(m_head.size()), MSG_NOSIGNAL);
    for (qsizetype i = 0; i < m_drip.size() && !m_stopping; ++i) {
        for (int waited = 0; waited < m_intervalMs && !m_stopping; waited += 10)
            ::usleep(10000);
        drain();
        if (::send(fd, m_drip.constData() + i, 1, MSG_NOSIGNAL) != 1)
            break;
    }
    ::close(fd);
}

} // namespace keel::test
