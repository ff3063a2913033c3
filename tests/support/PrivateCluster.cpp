#include "PrivateCluster.h"

#include "KeelProcess.h"
#include "ServerAccountAccess.h"

#include "core/db/LibpqConnection.h"
#include "devkit/servers/EmbeddedCluster.h"

#include <gtest/gtest.h>

namespace keel::test {

PrivateCluster::PrivateCluster() = default;

PrivateCluster::~PrivateCluster()
{
    if (m_cluster)
        (void)m_cluster->stop();
}

void PrivateCluster::start()
{
    ASSERT_TRUE(m_work.isValid());
    letServerAccountThrough(m_work.path());
    auto created = EmbeddedCluster::create({m_work.filePath(QStringLiteral("data")), 0, true});
    ASSERT_TRUE(created.ok()) << qPrintable(created.error().message);
    m_cluster = std::move(created).value();
    auto initialized = m_cluster->initialize();
    ASSERT_TRUE(initialized.ok()) << qPrintable(initialized.error().message);
    const Status started = m_cluster->start();
    ASSERT_TRUE(started.ok()) << qPrintable(started.error().message);
    ASSERT_TRUE(m_cluster->ensureDatabase(QStringLiteral("keel")).ok());
    m_settings = m_cluster->settings(QStringLiteral("keel"));
    const ProcessResult migrated =
        runKeel({QStringLiteral("migrate"), QStringLiteral("--db"), m_settings.conninfo()});
    ASSERT_EQ(migrated.exitCode, 0) << qPrintable(migrated.err);
    auto connection = LibpqConnection::open(m_settings);
    ASSERT_TRUE(connection.ok());
    ASSERT_EQ(connection->scalar("SHOW fsync").value(), QStringLiteral("on"));
}

} // namespace keel::test
