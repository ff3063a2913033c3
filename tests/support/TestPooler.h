#pragma once

#include "core/db/ConnectionSettings.h"

#include <QTemporaryDir>

#include <memory>

class QProcess;

namespace keel::test {

// A PgBouncer of the test's own (Debian's pgbouncer), in transaction pooling
// mode, in front of one database of the test cluster: clients log in as
// `server`'s user without a password and share at most `poolSize` server
// connections. Runs as the server account (PgBouncer refuses root).
class TestPooler final {
public:
    static bool available();
    TestPooler(const ConnectionSettings &server, int poolSize);
    ~TestPooler();

    bool started() const { return m_started; }
    QString error() const { return m_error; }
    // Where clients connect: 127.0.0.1, the pooler's port, the same database name.
    ConnectionSettings settings() const { return m_settings; }
    QString log() const;

private:
    QTemporaryDir m_parent;
    QString m_directory;
    std::unique_ptr<QProcess> m_process;
    ConnectionSettings m_settings;
    bool m_started = false;
    QString m_error;
};

} // namespace keel::test
