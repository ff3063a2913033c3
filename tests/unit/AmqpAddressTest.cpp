#include "core/outbox/AmqpAddress.h"
#include "QtPrinters.h"

#include <gtest/gtest.h>

using keel::AmqpAddress;

TEST(AmqpAddress, ReadsEveryPartAndDefaultsTheRest)
{
    auto full =
        AmqpAddress::parse(QStringLiteral("amqp://keel:p%40ss@mq1.internal:5673/keel%2Fprod"));
    ASSERT_TRUE(full.ok()) << qPrintable(full.error().message);
    EXPECT_EQ(full->host, QStringLiteral("mq1.internal"));
    EXPECT_EQ(full->port, 5673);
    EXPECT_EQ(full->user, QStringLiteral("keel"));
    EXPECT_EQ(full->password, QStringLiteral("p@ss"));
    EXPECT_EQ(full->vhost, QStringLiteral("keel/prod"));
    EXPECT_FALSE(full->redacted().contains(QLatin1String("p@ss")));

    auto bare = AmqpAddress::parse(QStringLiteral("amqp://mq2"));
    ASSERT_TRUE(bare.ok());
    EXPECT_EQ(bare->port, 5672);
    EXPECT_EQ(bare->vhost, QStringLiteral("/"));
}

// Two nodes' URLs joined by a comma (or without a space) would parse as one
// node whose vhost holds the second URL, password and all, and every message
// naming the address would print it.
TEST(AmqpAddress, TwoUrlsRunTogetherAreRefusedNotReadAsAVhost)
{
    for (const char *joined : {"amqp://u:p@h1/%2F,amqp://u:SECRET@h2/%2F",
                               "amqp://u:p@h1/keel/amqp://u:SECRET@h2/", "amqp://u:p@h1/a@b"}) {
        auto parsed = AmqpAddress::parse(QLatin1String(joined));
        ASSERT_FALSE(parsed.ok()) << joined << " read as vhost " << qPrintable(parsed->vhost);
        EXPECT_FALSE(parsed.error().message.contains(QLatin1String("SECRET")));
        EXPECT_TRUE(parsed.error().message.contains(QLatin1String("one path segment")));
    }
}
