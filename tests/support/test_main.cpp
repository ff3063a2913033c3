#include "ServiceLogToStderr.h"
#include "TestCluster.h"

#include <gtest/gtest.h>

#include <QCoreApplication>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    keel::test::sendServiceLogToStderr();
    ::testing::InitGoogleTest(&argc, argv);
    const int result = RUN_ALL_TESTS();
    // Stops a throwaway cluster of this process's own before statics unwind.
    keel::test::TestCluster::shutdownIfStarted();
    return result;
}
