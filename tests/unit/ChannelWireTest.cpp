// The wire between keel and a channel in another process.

#include "core/channel/ChannelWire.h"

#include <QSet>

#include <gtest/gtest.h>

using namespace keel;

TEST(ChannelWire, ARequestAndAResultSurviveTheTrip)
{
    const ChannelRequest sent{QStringLiteral("ch_1"), QStringLiteral("authorize"), 1999,
                              QStringLiteral("CNY"),  QStringLiteral("tok_visa"),  false};
    Result<ChannelRequest> read = ChannelWire::decodeRequest(ChannelWire::encodeRequest(sent));
    ASSERT_TRUE(read.ok());
    EXPECT_EQ(read->reference, sent.reference);
    EXPECT_EQ(read->operation, sent.operation);
    EXPECT_EQ(read->amount, 1999);
    EXPECT_EQ(read->currency, sent.currency);
    EXPECT_EQ(read->source, sent.source);
    EXPECT_FALSE(read->capture);

    const ChannelResult declined{ChannelOutcome::Declined, QStringLiteral("insufficient_funds"),
                                 QStringLiteral("no")};
    const ChannelResult back = ChannelWire::decodeResult(ChannelWire::encodeResult(declined));
    EXPECT_EQ(back.outcome, ChannelOutcome::Declined);
    EXPECT_EQ(back.declineCode, declined.declineCode);
    EXPECT_TRUE(back.channelReference.isEmpty());
    const ChannelResult approved{ChannelOutcome::Approved, {}, {}, QStringLiteral("2026120322001")};
    EXPECT_EQ(ChannelWire::decodeResult(ChannelWire::encodeResult(approved)).channelReference,
              approved.channelReference);
    EXPECT_EQ(ChannelWire::decodeResult("<html>bad gateway</html>").outcome,
              ChannelOutcome::Unknown);
}

// What keel stores of a channel's own id: whole or not at all.
TEST(ChannelWire, OnlyAPlainIdOfAtMost128CharactersIsKept)
{
    EXPECT_TRUE(keepableChannelReference(QStringLiteral("pi_3Nx")));
    EXPECT_TRUE(keepableChannelReference(QString(128, u'7')));
    EXPECT_FALSE(keepableChannelReference(QString(129, u'7')));
    EXPECT_FALSE(keepableChannelReference({}));
    EXPECT_FALSE(keepableChannelReference(QStringLiteral("ch_1\nX-Injected: 1")));
}

TEST(ChannelWire, ABadRequestNamesItsField)
{
    const struct {
        const char *json;
        const char *field;
    } cases[] = {
        {R"({"operation":"authorize","amount":1,"currency":"CNY"})", "reference"},
        {R"({"reference":"ch_1","operation":"steal","amount":1,"currency":"CNY"})", "operation"},
        {R"({"reference":"ch_1","operation":"refund","amount":-5,"currency":"CNY"})", "amount"},
        {R"({"reference":"ch_1","operation":"refund","amount":1.5,"currency":"CNY"})", "amount"},
        {R"({"reference":"ch_1","operation":"refund","amount":5,"currency":"yuan"})", "currency"},
    };
    for (const auto &bad : cases) {
        Result<ChannelRequest> read = ChannelWire::decodeRequest(bad.json);
        ASSERT_FALSE(read.ok()) << bad.json;
        EXPECT_EQ(read.error().field, QString::fromLatin1(bad.field)) << bad.json;
    }
    EXPECT_FALSE(ChannelWire::decodeRequest("not json").ok());
}

// One spelling per outcome, read back as itself; what keel does not know is
// Unknown (it may have been processed), never Failed (it certainly was not).
TEST(ChannelWire, EveryOutcomeHasOneNameThatReadsBackAsItself)
{
    QSet<QString> names;
    for (const ChannelOutcome outcome :
         {ChannelOutcome::Approved, ChannelOutcome::Declined, ChannelOutcome::Failed,
          ChannelOutcome::Unknown, ChannelOutcome::NotFound, ChannelOutcome::Closed}) {
        const QString name = channelOutcomeName(outcome);
        EXPECT_EQ(channelOutcomeNamed(name), outcome) << qPrintable(name);
        names.insert(name);
    }
    EXPECT_EQ(names.size(), 6);
    EXPECT_EQ(channelOutcomeNamed(u"APPROVED"), ChannelOutcome::Unknown);
    EXPECT_EQ(channelOutcomeNamed(u""), ChannelOutcome::Unknown);
}
