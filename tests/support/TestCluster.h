#pragma once

#include "core/Result.h"
#include "core/db/ConnectionSettings.h"

#include <QString>
#include <QTemporaryDir>

#include <memory>

namespace keel {
class EmbeddedCluster;
}

namespace keel::test {

// The PostgreSQL server tests run against, in order of preference:
//  1. KEEL_TEST_DSN: an existing server (superuser DSN); nothing is started.
//  2. KEEL_TEST_CLUSTER_FILE: a file naming the data directory of the
//     throwaway cluster that ctest's setup fixture started for the whole run.
//  3. Otherwise a throwaway cluster of this process's own, in a temporary
//     directory, stopped and removed when the process exits.
class TestCluster final {
public:
    static TestCluster &instance();
    ~TestCluster();

    // Superuser settings for `database`.
    ConnectionSettings settings(const QString &database) const;

    // A fresh, empty database with a unique name (prefix_<random>).
    Result<QString> createDatabase(const QString &prefix);
    void dropDatabase(const QString &name);

    // A login role that is a member of `memberOf` (may be empty).
    Status createLoginRole(const QString &name, const QString &memberOf,
                           const QString &password = {});
    void dropRole(const QString &name);

    // Stops an own cluster, if one was started (test main calls it on exit).
    static void shutdownIfStarted();

private:
    TestCluster();
    Status startOwnCluster();
    Status execAdmin(const QByteArray &sql);
    void shutdown();

    ConnectionSettings m_admin; // maintenance database "postgres"
    std::unique_ptr<EmbeddedCluster> m_ownCluster;
    // Removed when the cluster goes, also when starting it failed half-way.
    std::unique_ptr<QTemporaryDir> m_ownDirectory;
};

// A unique lowercase suffix for database and role names.
QString uniqueSuffix();

} // namespace keel::test
