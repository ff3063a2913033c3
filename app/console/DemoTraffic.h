#pragma once

#include "devkit/sim/DemoSagas.h"
#include "devkit/sim/TrafficSimulator.h"

#include <atomic>
#include <memory>
#include <thread>

namespace keel {

class DevStack;

// The demo's moving parts besides the window: merchant traffic (also from a
// merchant whose webhook endpoint is down, so notifications park), order
// sagas against misbehaving stand-in services, and the
// gateway's housekeeping (which writes the rollups the dashboards read), off
// the GUI thread. Stops both when destroyed.
class DemoTraffic final {
public:
    explicit DemoTraffic(DevStack &stack);
    ~DemoTraffic();
    DemoTraffic(const DemoTraffic &) = delete;
    DemoTraffic &operator=(const DemoTraffic &) = delete;

private:
    std::atomic<bool> m_stopping{false};
    TrafficSimulator m_simulator;
    std::unique_ptr<TrafficSimulator> m_deadWebhookShop;
    DemoSagas m_sagas;
    std::thread m_traffic;
    std::thread m_deadWebhookTraffic;
    std::thread m_housekeeping;
};

} // namespace keel
