#include "ServiceLogToStderr.h"
#include "TestCluster.h"

#include "core/net/HttpClient.h"

#include <gtest/gtest.h>

#include <QCoreApplication>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    keel::test::sendServiceLogToStderr();
    // The tests' participants and merchants listen on loopback over plain
    // HTTP, as a deployment run with --allow-http; the refusal's own tests
    // switch it off.
    keel::HttpClient::allowPlainHttp(true);
    ::testing::InitGoogleTest(&argc, argv);
    const int result = RUN_ALL_TESTS();
    // Stops a throwaway cluster of this process's own before statics unwind.
    keel::test::TestCluster::shutdownIfStarted();
    return result;
}
