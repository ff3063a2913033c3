#include "TestBroker.h"

#include "devkit/servers/EmbeddedBroker.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <memory>

namespace keel::test {

AmqpAddress testBroker()
{
    // The broker fixture's state file sits beside the cluster fixture's.
    const QString clusterFile = qEnvironmentVariable("KEEL_TEST_CLUSTER_FILE");
    const QString stateFile =
        clusterFile.isEmpty()
            ? QString()
            : QFileInfo(clusterFile).dir().filePath(QStringLiteral("test-broker.state"));
    QFile state(stateFile);
    if (!stateFile.isEmpty() && state.open(QIODevice::ReadOnly)) {
        state.readLine();
        AmqpAddress address;
        address.port = state.readLine().trimmed().toInt();
        return address;
    }
    static QTemporaryDir directory(QStringLiteral("/tmp/keel-broker-XXXXXX"));
    static std::unique_ptr<EmbeddedBroker> own;
    if (!own) {
        auto started = EmbeddedBroker::start(directory.path());
        if (!started) {
            ADD_FAILURE() << qPrintable(started.error().message);
            return {};
        }
        own = std::move(started).value();
    }
    return own->address();
}

} // namespace keel::test
