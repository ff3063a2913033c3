#pragma once

#include <QElapsedTimer>
#include <QThread>

namespace keel::test {

// Polls `condition` every 20 ms until it holds or `timeoutMs` passes; returns
// whether it held. Tests wait on what they need, never for a fixed time.
template <typename Condition>
bool waitUntil(Condition condition, int timeoutMs = 10000)
{
    QElapsedTimer timer;
    timer.start();
    while (!condition()) {
        if (timer.elapsed() > timeoutMs)
            return false;
        QThread::msleep(20);
    }
    return true;
}

} // namespace keel::test
