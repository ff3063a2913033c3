#include "QtPrinters.h"

#include "core/db/ConnectionFailure.h"

#include <gtest/gtest.h>

namespace keel::test {

// libpq's own words for a host name that resolved to ::1 (refused) and then
// 127.0.0.1 (certificate refused): Debian's /etc/hosts gives localhost both.
TEST(ConnectionFailureTest, TheAttemptThatDecidedComesFirstAndTheEarlierOnesFollow)
{
    const QString libpq = QStringLiteral(
        "connection to server at \"localhost\" (::1), port 40863 failed: Connection refused\n"
        "\tIs the server running on that host and accepting TCP/IP connections?\n"
        "connection to server at \"localhost\" (127.0.0.1), port 40863 failed: SSL error: "
        "certificate verify failed\n");
    EXPECT_EQ(describeConnectionFailure(libpq),
              QStringLiteral("SSL error: certificate verify failed (127.0.0.1, port 40863); also "
                             "tried ::1, port 40863: Connection refused Is the server running on "
                             "that host and accepting TCP/IP connections?"));
}

TEST(ConnectionFailureTest, AddressesGivenAsHostaddrAreNamedToo)
{
    const QString libpq =
        QStringLiteral("connection to server at \"::1\", port 5433 failed: Connection refused\n"
                       "\tIs the server running on that host and accepting TCP/IP connections?\n"
                       "connection to server at \"10.0.0.2\", port 5433 failed: timeout expired\n");
    EXPECT_TRUE(describeConnectionFailure(libpq).startsWith(
        QLatin1String("timeout expired (10.0.0.2, port 5433); also tried ::1, port 5433: "
                      "Connection refused")))
        << qPrintable(describeConnectionFailure(libpq));
}

TEST(ConnectionFailureTest, OneAttemptIsOneLine)
{
    EXPECT_EQ(describeConnectionFailure(QStringLiteral(
                  "connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: FATAL:  "
                  "password authentication failed for user \"ops\"\n")),
              QStringLiteral("FATAL: password authentication failed for user \"ops\" "
                             "(/tmp/.s.PGSQL.5432)"));
    EXPECT_EQ(describeConnectionFailure(QStringLiteral(
                  "could not translate host name \"nowhere.invalid\" to address: Name or "
                  "service not known\n")),
              QStringLiteral("could not translate host name \"nowhere.invalid\" to address: Name "
                             "or service not known"));
}

} // namespace keel::test
