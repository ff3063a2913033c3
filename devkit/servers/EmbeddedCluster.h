#pragma once

#include "core/Result.h"
#include "devkit/servers/ServerBinaries.h"
#include "devkit/servers/ServiceAccount.h"

#include <QString>

#include <memory>

class QProcess;
class QProcessEnvironment;

namespace keel {

class ConnectionSettings;

struct ClusterOptions {
    QString dataDirectory;
    int port = 0;        // 0: the one used last time in this directory, else a free one
    bool durable = true; // false: fsync off, for throwaway test clusters
};

// A private PostgreSQL server in a directory of keel's: `keel dev` and the test
// fixture. It listens on a unix socket inside the data directory (mode 0700,
// trust) and on a loopback port (password, stored in the directory). The
// superuser is "keel".
class EmbeddedCluster final {
public:
    static Result<std::unique_ptr<EmbeddedCluster>> create(ClusterOptions options);
    ~EmbeddedCluster();
    Q_DISABLE_COPY_MOVE(EmbeddedCluster)

    // Runs initdb unless the directory already holds a cluster; true if it did.
    Result<bool> initialize();

    // Starts the server as a child that stops when this process dies.
    Status start();
    // Starts the server through pg_ctl so that it outlives this process.
    Status startDetached();
    // Stops the server started by either call (fast shutdown).
    Status stop();
    // Stops the server without a checkpoint (immediate shutdown), as a crash
    // would: the next start recovers from the WAL.
    Status stopImmediately();
    // Stops whatever server runs on the data directory, whoever started it.
    Status stopDirectory(const QString &mode = QStringLiteral("fast"));
    bool running() const;

    // Creates the database unless it exists.
    Status ensureDatabase(const QString &name);
    Status dropDatabase(const QString &name);

    // Superuser settings for a database over the unix socket.
    ConnectionSettings settings(const QString &database) const;

    QString dataDirectory() const { return m_options.dataDirectory; }
    int port() const { return m_port; }
    QString logFile() const;
    ServiceAccount account() const { return m_account; }

    static QString superuser() { return QStringLiteral("keel"); }
    // The environment PostgreSQL's programs run in: PostgreSQL reads PG*
    // variables too, and a stray PGDATA or PGPORT must not steer it.
    static QProcessEnvironment programEnvironment();

private:
    EmbeddedCluster(ClusterOptions options, ServerBinaries binaries, ServiceAccount account);

    Status choosePort();
    Status clearStalePidFile();
    Status waitUntilReady(int timeoutMs);
    Status setLoopbackPassword();
    QStringList serverOptions() const;
    QString logTail() const;

    ClusterOptions m_options;
    ServerBinaries m_binaries;
    ServiceAccount m_account;
    int m_port = 0;
    std::unique_ptr<QProcess> m_server; // attached mode
    bool m_detached = false;
};

} // namespace keel
