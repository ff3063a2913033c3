#include "core/api/RequestParams.h"
#include "QtPrinters.h"

#include <gtest/gtest.h>

using keel::RequestParams;

TEST(RequestParams, FormDecodesPercentPlusAndBrackets)
{
    auto params =
        RequestParams::fromForm("amount=100&description=two+words%21&metadata%5Border%5D=A%2F1");
    ASSERT_TRUE(params.ok());
    EXPECT_EQ(params->valueOr(QStringLiteral("description")), QStringLiteral("two words!"));
    const auto metadata = params->group(QStringLiteral("metadata"));
    ASSERT_EQ(metadata.size(), 1);
    EXPECT_EQ(metadata.at(0).first, QStringLiteral("order"));
    EXPECT_EQ(metadata.at(0).second, QStringLiteral("A/1"));
}

TEST(RequestParams, JsonFlattensNestedObjectsAndKeepsNumbersAsWritten)
{
    auto params = RequestParams::fromJson(
        R"({"amount": 0100, "capture": false, "metadata": {"k": "v\u00e9"}, "x": null})");
    ASSERT_TRUE(params.ok()) << qPrintable(params.error().message);
    EXPECT_EQ(params->valueOr(QStringLiteral("amount")), QStringLiteral("0100"));
    EXPECT_EQ(params->valueOr(QStringLiteral("capture")), QStringLiteral("false"));
    EXPECT_EQ(params->valueOr(QStringLiteral("metadata[k]")), QStringLiteral("vé"));
    EXPECT_TRUE(params->has(QStringLiteral("x")));
}

TEST(RequestParams, JsonRefusesDuplicatesAtAnyDepth)
{
    auto top = RequestParams::fromJson(R"({"a": 1, "a": 2})");
    ASSERT_FALSE(top.ok());
    EXPECT_TRUE(top.error().message.contains(QLatin1String("\"a\"")));
    auto nested = RequestParams::fromJson(R"({"metadata": {"k": 1, "k": 2}})");
    ASSERT_FALSE(nested.ok());
    EXPECT_TRUE(nested.error().message.contains(QLatin1String("metadata[k]")));
}

TEST(RequestParams, JsonRefusesTruncationTrailingDataAndBadEscapes)
{
    for (const char *bad :
         {R"({"a": 1)", R"({"a": "unterminated})", R"({"a": 1} x)", R"({"a": "\q"})",
          R"({"a": "\ud800"})", "{\"a\": \"\xff\"}", R"({a: 1})", R"({"a": tru})", ""}) {
        SCOPED_TRACE(bad);
        EXPECT_FALSE(RequestParams::fromJson(bad).ok());
    }
}

TEST(RequestParams, JsonDecodesSurrogatePairs)
{
    auto params = RequestParams::fromJson(R"({"d": "\ud83d\ude00"})");
    ASSERT_TRUE(params.ok());
    EXPECT_EQ(params->valueOr(QStringLiteral("d")), QString::fromUtf8("\xF0\x9F\x98\x80"));
}

TEST(RequestParams, FormRefusesDuplicatesAndInvalidUtf8)
{
    EXPECT_FALSE(RequestParams::fromForm("a=1&a=2").ok());
    EXPECT_FALSE(RequestParams::fromForm("a=%FF").ok());
}

TEST(RequestParams, UnknownKeysHonourPrefixes)
{
    auto params = RequestParams::fromForm("amount=1&metadata[x]=2&colour=red");
    ASSERT_TRUE(params.ok());
    EXPECT_EQ(params->unknownKeys({QStringLiteral("amount"), QStringLiteral("metadata[")}),
              QStringList{QStringLiteral("colour")});
}

TEST(RequestParams, ContentTypeChoosesTheParser)
{
    EXPECT_TRUE(RequestParams::fromBody("application/json; charset=utf-8", R"({"a": "1"})").ok());
    EXPECT_TRUE(RequestParams::fromBody("application/x-www-form-urlencoded", "a=1").ok());
    EXPECT_FALSE(RequestParams::fromBody("text/xml", "<a/>").ok());
    EXPECT_TRUE(RequestParams::fromBody("text/xml", "").ok()); // no body, nothing to parse
}
