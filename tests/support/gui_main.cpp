#include "ServiceLogToStderr.h"
#include "TestCluster.h"

#include "core/net/HttpClient.h"

#include <gtest/gtest.h>

#include <QApplication>

int main(int argc, char **argv)
{
    // Widgets without a display: the offscreen platform, unless told otherwise.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    keel::test::sendServiceLogToStderr();
    // The tests' participants and merchants listen on loopback over plain
    // HTTP, as a deployment run with --allow-http; the refusal's own tests
    // switch it off.
    keel::HttpClient::allowPlainHttp(true);
    ::testing::InitGoogleTest(&argc, argv);
    const int result = RUN_ALL_TESTS();
    keel::test::TestCluster::shutdownIfStarted();
    return result;
}
