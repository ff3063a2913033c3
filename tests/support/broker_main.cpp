// keel-test-broker start|stop STATEFILE
// ctest's setup and cleanup fixtures: one throwaway RabbitMQ node for a whole
// test run. STATEFILE receives its directory and AMQP port.
#include "devkit/servers/EmbeddedBroker.h"

#include "FixtureMain.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <cstdio>

using keel::EmbeddedBroker;

namespace {

int failWith(const QString &message)
{
    return keel::test::fixtureFailure("keel-test-broker", message);
}

int start(const QString &stateFile)
{
    QTemporaryDir made(QStringLiteral("/tmp/keel-broker-XXXXXX"));
    if (!made.isValid())
        return failWith(QStringLiteral("cannot make a directory in /tmp"));
    auto address = EmbeddedBroker::startDetached(made.path());
    if (!address) {
        (void)EmbeddedBroker::stopDirectory(made.path());
        return failWith(address.error().message);
    }
    QFile out(stateFile);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return failWith(QStringLiteral("cannot write %1").arg(stateFile));
    out.write(made.path().toUtf8() + '\n' + QByteArray::number(address->port) + '\n');
    made.setAutoRemove(false);
    std::printf("throwaway RabbitMQ in %s on port %d\n", qPrintable(made.path()), address->port);
    return 0;
}

int stop(const QString &stateFile)
{
    QFile in(stateFile);
    if (!in.open(QIODevice::ReadOnly))
        return 0; // nothing was started
    const QString directory = QString::fromUtf8(in.readLine()).trimmed();
    in.close();
    const auto stopped = EmbeddedBroker::stopDirectory(directory);
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
    return keel::test::runFixture(argc, argv, "keel-test-broker", start, stop);
}
