// Name resolution inside the call's deadline: the system's resolver may wait
// seconds for a DNS server that does not answer; a call must not.

#include "core/net/Resolver.h"
#include "core/net/Deadline.h"

#include <QElapsedTimer>

#include <gtest/gtest.h>

using namespace keel;

TEST(Resolver, AnAddressResolvesToItselfAtOnce)
{
    QString error;
    const std::vector<ResolvedAddress> found =
        resolveWithin("127.0.0.1", 8443, Deadline(1000), &error);
    ASSERT_EQ(found.size(), 1u) << qPrintable(error);
    EXPECT_EQ(found.front().family, AF_INET);
    const std::vector<ResolvedAddress> six = resolveWithin("::1", 8443, Deadline(1000), &error);
    ASSERT_EQ(six.size(), 1u) << qPrintable(error);
    EXPECT_EQ(six.front().family, AF_INET6);
}

TEST(Resolver, ANameTheSystemKnowsResolves)
{
    QString error;
    EXPECT_FALSE(resolveWithin("localhost", 443, Deadline(5000), &error).empty())
        << qPrintable(error);
}

// A name under .invalid never resolves (RFC 6761). However long the system's
// resolver takes to say so (no DNS server answers on a machine without a
// network), the caller has its answer when its time is up.
TEST(Resolver, ANameThatDoesNotResolveFailsWithinTheDeadline)
{
    QElapsedTimer timer;
    timer.start();
    QString error;
    EXPECT_TRUE(resolveWithin("keel-resolver-test.invalid", 443, Deadline(300), &error).empty());
    EXPECT_LT(timer.elapsed(), 1500);
    EXPECT_TRUE(error.contains(QLatin1String("keel-resolver-test.invalid"))) << qPrintable(error);
}
