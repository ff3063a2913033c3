#include "ServiceLogToStderr.h"
#include "TestCluster.h"

#include <gtest/gtest.h>

#include <QApplication>

int main(int argc, char **argv)
{
    // Widgets without a display: the offscreen platform, unless told otherwise.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    keel::test::sendServiceLogToStderr();
    ::testing::InitGoogleTest(&argc, argv);
    const int result = RUN_ALL_TESTS();
    keel::test::TestCluster::shutdownIfStarted();
    return result;
}
