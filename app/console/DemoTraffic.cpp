#include "DemoTraffic.h"

#include "core/dev/DevStack.h"

#include <chrono>

namespace keel {

DemoTraffic::DemoTraffic(DevStack &stack)
    : m_simulator({stack.gatewayUrl(), stack.apiKey(), 12.0, 0, 3}),
      m_sagas(stack.gatewayUrl(), stack.apiKey()), m_traffic([this] { (void)m_simulator.run(); }),
      m_housekeeping([this, &stack] {
          while (!m_stopping) {
              stack.maintain();
              for (int i = 0; i < 20 && !m_stopping; ++i)
                  std::this_thread::sleep_for(std::chrono::milliseconds(100));
          }
      })
{
    (void)m_sagas.start(); // without them the demo still shows payments
    if (Result<QString> key = stack.deadWebhookMerchantKey(); key.ok()) {
        m_deadWebhookShop = std::make_unique<TrafficSimulator>(
            SimulationOptions{stack.gatewayUrl(), *key, 0.3, 0, 1});
        m_deadWebhookTraffic = std::thread([this] { (void)m_deadWebhookShop->run(); });
    }
}

DemoTraffic::~DemoTraffic()
{
    m_stopping = true;
    m_sagas.stop();
    m_simulator.stop();
    if (m_deadWebhookShop)
        m_deadWebhookShop->stop();
    m_traffic.join();
    if (m_deadWebhookTraffic.joinable())
        m_deadWebhookTraffic.join();
    m_housekeeping.join();
}

} // namespace keel
