// keel-test-cluster start|stop STATEFILE
// ctest's setup and cleanup fixtures: one throwaway PostgreSQL for a whole
// test run. STATEFILE receives the data directory and port.
#include "devkit/servers/EmbeddedCluster.h"

#include "FixtureMain.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <cstdio>
#include <cstdlib>

using keel::ClusterOptions;
using keel::EmbeddedCluster;

namespace {

int failWith(const QString &message)
{
    return keel::test::fixtureFailure("keel-test-cluster", message);
}

int start(const QString &stateFile)
{
    // Removed again unless the server started: the stop fixture removes it then.
    QTemporaryDir made(QStringLiteral("/tmp/keel-test-XXXXXX"));
    if (!made.isValid())
        return failWith(
            QStringLiteral("cannot make a directory in /tmp: %1").arg(made.errorString()));
    const QString directory = made.path();
    auto created = EmbeddedCluster::create(ClusterOptions{directory, 0, false});
    if (!created)
        return failWith(created.error().message);
    EmbeddedCluster &cluster = **created;
    if (auto initialized = cluster.initialize(); !initialized)
        return failWith(initialized.error().message);
    if (auto started = cluster.startDetached(); !started)
        return failWith(started.error().message);
    QFile out(stateFile);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return failWith(QStringLiteral("cannot write %1").arg(stateFile));
    out.write(directory.toUtf8() + '\n' + QByteArray::number(cluster.port()) + '\n');
    made.setAutoRemove(false);
    std::printf("throwaway PostgreSQL in %s on port %d\n", qPrintable(directory), cluster.port());
    return 0;
}

int stop(const QString &stateFile)
{
    QFile in(stateFile);
    if (!in.open(QIODevice::ReadOnly))
        return 0; // nothing was started
    const QString directory = QString::fromUtf8(in.readLine()).trimmed();
    in.close();
    auto created = EmbeddedCluster::create(ClusterOptions{directory, 0, false});
    if (!created)
        return failWith(created.error().message);
    // pg_ctl stop needs no port; a detached cluster is stopped through its directory.
    EmbeddedCluster &cluster = **created;
    const auto stopped = cluster.stopDirectory();
    QDir(directory).removeRecursively();
    QFile::remove(stateFile);
    if (!stopped)
        return failWith(stopped.error().message);
    std::printf("stopped and removed %s\n", qPrintable(directory));
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    return keel::test::runFixture(argc, argv, "keel-test-cluster", start, stop);
}
