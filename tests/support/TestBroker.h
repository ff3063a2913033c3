#pragma once

#include "core/outbox/AmqpAddress.h"

namespace keel::test {

// The RabbitMQ node tests publish to: the run's throwaway node (ctest's
// broker fixture, KEEL_TEST_BROKER_FILE), or one this process starts for
// itself when a test binary is run by hand. Tests keep apart by using
// exchanges and queues of their own.
AmqpAddress testBroker();

} // namespace keel::test
