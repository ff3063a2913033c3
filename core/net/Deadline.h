#pragma once

#include <algorithm>
#include <chrono>

namespace keel {

// The moment a whole call must be over by. Each wait of the call (connect,
// handshake, every read and write) takes what is left, so a peer that
// drips a byte at a time cannot stretch one call past its timeout, and past
// the lease of the work it carries.
class Deadline final {
public:
    using Clock = std::chrono::steady_clock;

    Deadline() : m_at(Clock::time_point::max()) {}
    explicit Deadline(int ms) : m_at(Clock::now() + std::chrono::milliseconds(ms)) {}

    // Milliseconds left, 0 once passed; a poll() timeout.
    int remainingMs() const
    {
        if (m_at == Clock::time_point::max())
            return -1; // no deadline: poll waits for ever
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(m_at - Clock::now()).count();
        return int(std::clamp<long long>(left, 0, 1LL << 30));
    }
    bool passed() const { return remainingMs() == 0; }

private:
    Clock::time_point m_at;
};

} // namespace keel
