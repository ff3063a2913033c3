#pragma once

#include <QByteArray>

#include <atomic>
#include <thread>

namespace keel::test {

// A peer on loopback that answers as slowly as it can without ever falling
// silent: it takes one connection, waits for the client's first bytes,
// sends `head` at once and then `drip` one byte at a time, a byte every
// `intervalMs`, until the test ends. Each of the client's waits sees
// progress; only a bound on the whole call ends it.
class DrippingPeer final {
public:
    DrippingPeer(QByteArray head, QByteArray drip, int intervalMs);
    ~DrippingPeer();
    DrippingPeer(const DrippingPeer &) = delete;
    DrippingPeer &operator=(const DrippingPeer &) = delete;

    int port() const { return m_port; }

private:
    void serve();

    QByteArray m_head;
    QByteArray m_drip;
    int m_intervalMs;
    int m_listener = -1;
    int m_port = 0;
    std::atomic<bool> m_stopping{false};
    std::thread m_thread;
};

} // namespace keel::test
