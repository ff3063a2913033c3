#include "QtPrinters.h"
#include "core/json/JsonWriter.h"
#include "core/money/Currency.h"
#include "core/payment/PaymentState.h"

#include <gtest/gtest.h>

#include <limits>

using namespace keel;

namespace {
const Currency Usd{QStringLiteral("USD"), 2, 100000000000};
const Currency Jpy{QStringLiteral("JPY"), 0, 10000000000};
const Currency Bhd{QStringLiteral("BHD"), 3, 10000000000};
} // namespace

TEST(Money, AcceptsPlainAsciiDigits)
{
    EXPECT_EQ(*parseMinorUnits(QStringLiteral("1"), Usd, 0), 1);
    EXPECT_EQ(*parseMinorUnits(QStringLiteral("0100"), Usd, 0), 100);
    EXPECT_EQ(*parseMinorUnits(QStringLiteral("10000000000"), Jpy, 0), 10000000000);
}

TEST(Money, RefusesEverythingElseNamingTheField)
{
    for (const char *bad : {"", "0", "-1", "+1", " 1", "1 ", "1,000", "1e3", "0x10", "1.0"}) {
        SCOPED_TRACE(bad);
        auto parsed = parseMinorUnits(QString::fromUtf8(bad), Usd, 0);
        ASSERT_FALSE(parsed.ok());
        EXPECT_EQ(parsed.error().field, QStringLiteral("amount"));
    }
    // Full-width and Arabic-Indic digits are digits to QChar::isDigit, not to money.
    EXPECT_FALSE(parseMinorUnits(QString::fromUtf8("\xef\xbc\x91\xef\xbc\x90"), Usd, 0).ok());
    EXPECT_FALSE(parseMinorUnits(QString::fromUtf8("\xd9\xa1\xd9\xa0"), Usd, 0).ok());
}

TEST(Money, OverflowAndLimits)
{
    auto overflow = parseMinorUnits(QStringLiteral("9223372036854775808"), Usd, 0);
    ASSERT_FALSE(overflow.ok());
    EXPECT_EQ(overflow.error().code, QStringLiteral("amount_too_large"));
    EXPECT_FALSE(parseMinorUnits(QStringLiteral("100000000001"), Usd, 0).ok());
    auto merchantLimit = parseMinorUnits(QStringLiteral("5001"), Usd, 5000);
    ASSERT_FALSE(merchantLimit.ok());
    EXPECT_TRUE(merchantLimit.error().message.contains(QLatin1String("5000")));
}

TEST(Money, DecimalPointExplainsTheCurrencyExponent)
{
    auto yen = parseMinorUnits(QStringLiteral("100.5"), Jpy, 0);
    ASSERT_FALSE(yen.ok());
    EXPECT_TRUE(yen.error().message.contains(QLatin1String("JPY has 0 decimal places")))
        << qPrintable(yen.error().message);
    auto dinar = parseMinorUnits(QStringLiteral("1.5"), Bhd, 0);
    ASSERT_FALSE(dinar.ok());
    EXPECT_TRUE(dinar.error().message.contains(QLatin1String("0.001")))
        << qPrintable(dinar.error().message);
}

TEST(Money, JsonWriterKeepsInt64Exact)
{
    JsonWriter json;
    json.beginObject().field(QStringLiteral("a"), qint64(9223372036854775807)).endObject();
    EXPECT_EQ(json.data(), QByteArray(R"({"a":9223372036854775807})"));
    JsonWriter text;
    text.beginObject().field(QStringLiteral("s"), QStringLiteral("q\"\\\n\x01")).endObject();
    EXPECT_EQ(text.data(), QByteArray(R"({"s":"q\"\\\n\u0001"})"));
}

TEST(PaymentState, WhitelistAllowsTheSeedsTransitionsOnly)
{
    using S = PaymentState;
    EXPECT_TRUE(transitionAllowed(S::Created, S::Authorizing));
    EXPECT_TRUE(transitionAllowed(S::Capturing, S::Authorized));
    EXPECT_TRUE(transitionAllowed(S::Refunding, S::Captured));
    EXPECT_FALSE(transitionAllowed(S::Refunded, S::Captured));
    EXPECT_FALSE(transitionAllowed(S::Failed, S::Authorized));
    EXPECT_FALSE(transitionAllowed(S::Created, S::Captured));
    EXPECT_FALSE(transitionFor(S::Captured, QStringLiteral("auth_ok")).has_value());
    for (const S terminal : {S::Failed, S::Refunded, S::Reversed, S::Canceled}) {
        EXPECT_TRUE(isTerminal(terminal));
        for (int to = 0; to < 10; ++to)
            EXPECT_FALSE(transitionAllowed(terminal, S(to))) << qPrintable(stateName(terminal));
    }
    EXPECT_EQ(stateFromName(QStringLiteral("Capturing")), S::Capturing);
    EXPECT_FALSE(stateFromName(QStringLiteral("capturing")).has_value());
}

TEST(MajorUnits, DecimalAmountsBecomeMinorUnitsWithTheCurrencysExponent)
{
    const keel::Currency cny{QStringLiteral("CNY"), 2, 0};
    const keel::Currency jpy{QStringLiteral("JPY"), 0, 0};
    EXPECT_EQ(*keel::parseMajorUnits(QStringLiteral("19.99"), cny), 1999);
    EXPECT_EQ(*keel::parseMajorUnits(QStringLiteral("19.9"), cny), 1990);
    EXPECT_EQ(*keel::parseMajorUnits(QStringLiteral("20"), cny), 2000);
    EXPECT_EQ(*keel::parseMajorUnits(QStringLiteral("0.01"), cny), 1);
    EXPECT_EQ(*keel::parseMajorUnits(QStringLiteral("500"), jpy), 500);
    for (const char *bad :
         {"", ".5", "19.", "19.999", "1,99", "-1", "1e3", "19.9a", " 1", "1234567890123456"})
        EXPECT_FALSE(keel::parseMajorUnits(QString::fromLatin1(bad), cny).ok()) << bad;
    EXPECT_FALSE(keel::parseMajorUnits(QStringLiteral("5.0"), jpy).ok());
    // Found by AmountFuzz: fifteen digits in a four-decimal currency overflowed.
    const keel::Currency clf{QStringLiteral("CLF"), 4, 0};
    EXPECT_FALSE(keel::parseMajorUnits(QStringLiteral("991336854775807"), clf).ok());
    EXPECT_EQ(*keel::parseMajorUnits(QStringLiteral("922337203685477.5807"), clf),
              std::numeric_limits<qint64>::max());
}

TEST(MajorUnits, FormattingIsTheInverseOfParsing)
{
    const keel::Currency cny{QStringLiteral("CNY"), 2, 0};
    const keel::Currency jpy{QStringLiteral("JPY"), 0, 0};
    const keel::Currency kwd{QStringLiteral("KWD"), 3, 0};
    EXPECT_EQ(keel::formatMajorUnits(1999, cny), QStringLiteral("19.99"));
    EXPECT_EQ(keel::formatMajorUnits(1, cny), QStringLiteral("0.01"));
    EXPECT_EQ(keel::formatMajorUnits(0, cny), QStringLiteral("0.00"));
    EXPECT_EQ(keel::formatMajorUnits(500, jpy), QStringLiteral("500"));
    EXPECT_EQ(keel::formatMajorUnits(1234, kwd), QStringLiteral("1.234"));
    for (const qint64 amount : {0LL, 1LL, 10LL, 99LL, 100LL, 123456789LL})
        for (const keel::Currency &currency : {cny, jpy, kwd})
            EXPECT_EQ(*keel::parseMajorUnits(keel::formatMajorUnits(amount, currency), currency),
                      amount);
}
