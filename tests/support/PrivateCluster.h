#pragma once

#include "core/db/ConnectionSettings.h"

#include <QTemporaryDir>

#include <memory>

namespace keel {
class EmbeddedCluster;
}

namespace keel::test {

// A PostgreSQL cluster of the test's own, durable (fsync on), with a migrated
// database "keel": for tests that kill or restart the server, which the
// shared test cluster must never be (other tests run beside them).
class PrivateCluster final {
public:
    PrivateCluster();
    ~PrivateCluster();

    // Creates and starts it; failures are recorded as fatal test failures.
    void start();
    ConnectionSettings settings() const { return m_settings; }
    EmbeddedCluster &server() { return *m_cluster; }

private:
    QTemporaryDir m_work;
    std::unique_ptr<EmbeddedCluster> m_cluster;
    ConnectionSettings m_settings;
};

} // namespace keel::test
