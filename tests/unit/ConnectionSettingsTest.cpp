#include "core/db/ConnectionSettings.h"
#include "QtPrinters.h"

#include <gtest/gtest.h>

using keel::ConnectionSettings;
using keel::ErrorKind;

TEST(ConnectionSettings, ParsesLibpqUri)
{
    auto parsed = ConnectionSettings::parse(
        QStringLiteral("postgresql://alice:s3cret@db.example:6432/payments?sslmode=verify-full"));
    ASSERT_TRUE(parsed.ok()) << qPrintable(parsed.error().message);
    EXPECT_EQ(parsed->value(QStringLiteral("host")), QStringLiteral("db.example"));
    EXPECT_EQ(parsed->value(QStringLiteral("port")), QStringLiteral("6432"));
    EXPECT_EQ(parsed->value(QStringLiteral("dbname")), QStringLiteral("payments"));
    EXPECT_EQ(parsed->value(QStringLiteral("user")), QStringLiteral("alice"));
    EXPECT_EQ(parsed->value(QStringLiteral("password")), QStringLiteral("s3cret"));
    EXPECT_EQ(parsed->value(QStringLiteral("sslmode")), QStringLiteral("verify-full"));
}

TEST(ConnectionSettings, ParsesKeyValueWithQuotedValues)
{
    auto parsed = ConnectionSettings::parse(
        QStringLiteral("service=keel application_name='ops console' sslrootcert=/etc/ca.pem"));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(parsed->value(QStringLiteral("service")), QStringLiteral("keel"));
    EXPECT_EQ(parsed->value(QStringLiteral("application_name")), QStringLiteral("ops console"));
    EXPECT_FALSE(parsed->has(QStringLiteral("host"))); // left to PG* variables and defaults
}

TEST(ConnectionSettings, EmptyStringMeansLibpqDefaults)
{
    auto parsed = ConnectionSettings::parse(QStringLiteral("   "));
    ASSERT_TRUE(parsed.ok());
    EXPECT_TRUE(parsed->parameters().isEmpty());
}

TEST(ConnectionSettings, MalformedStringIsAUsageErrorThatSaysWhy)
{
    auto parsed = ConnectionSettings::parse(QStringLiteral("host=db1 bogus_option=1"));
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.error().kind, ErrorKind::Usage);
    EXPECT_TRUE(parsed.error().message.contains(QLatin1String("bogus_option")))
        << qPrintable(parsed.error().message);

    auto unterminated = ConnectionSettings::parse(QStringLiteral("host='db1"));
    ASSERT_FALSE(unterminated.ok());
    EXPECT_EQ(unterminated.error().kind, ErrorKind::Usage);
}

TEST(ConnectionSettings, RedactedAndUriNeverContainThePassword)
{
    auto parsed = ConnectionSettings::parse(
        QStringLiteral("postgresql://bob:hunter2@localhost/keel?sslmode=require"));
    ASSERT_TRUE(parsed.ok());
    EXPECT_FALSE(parsed->redacted().contains(QLatin1String("hunter2")));
    EXPECT_FALSE(parsed->uri().contains(QLatin1String("hunter2")));
    EXPECT_TRUE(parsed->conninfo().contains(QLatin1String("hunter2")));
}

TEST(ConnectionSettings, UriRoundTripsThroughLibpq)
{
    ConnectionSettings original;
    original.set(QStringLiteral("host"), QStringLiteral("/tmp/keel dev/sock"));
    original.set(QStringLiteral("port"), QStringLiteral("54321"));
    original.set(QStringLiteral("user"), QStringLiteral("keel"));
    original.set(QStringLiteral("dbname"), QStringLiteral("keel"));
    auto reparsed = ConnectionSettings::parse(original.uri());
    ASSERT_TRUE(reparsed.ok()) << qPrintable(original.uri());
    for (const auto &[key, value] : original.parameters())
        EXPECT_EQ(reparsed->value(key), value) << qPrintable(key);
}
