#include "QtPrinters.h"
#include "core/idempotency/Fingerprint.h"
#include "core/idempotency/IdempotencyGate.h"
#include "core/idempotency/IdempotencyKey.h"
#include "core/idempotency/IdempotencyStore.h"

#include <gtest/gtest.h>

using namespace keel;

TEST(IdempotencyKey, BareAndStructuredFieldFormsAreTheSameKey)
{
    auto bare = IdempotencyKey::parse("8e03978e-40d5-43e8-bc93-6894a57f9324", true);
    auto quoted = IdempotencyKey::parse("\"8e03978e-40d5-43e8-bc93-6894a57f9324\"", true);
    ASSERT_TRUE(bare.ok() && quoted.ok());
    EXPECT_EQ(bare->scopedHash(7), quoted->scopedHash(7));
    EXPECT_NE(bare->scopedHash(7), bare->scopedHash(8)) << "keys are scoped to the merchant";
}

TEST(IdempotencyKey, StructuredFieldEscapes)
{
    auto key = IdempotencyKey::parse(R"("a\"b\\c")", true);
    ASSERT_TRUE(key.ok());
    EXPECT_EQ(key->text(), QStringLiteral("a\"b\\c"));
    EXPECT_FALSE(IdempotencyKey::parse(R"("a\qb")", true).ok());
    EXPECT_FALSE(IdempotencyKey::parse(R"("ab)", true).ok());
}

TEST(IdempotencyKey, LengthAndCharacterRules)
{
    EXPECT_TRUE(IdempotencyKey::parse(QByteArray(255, 'x'), true).ok());
    auto tooLong = IdempotencyKey::parse(QByteArray(256, 'x'), true);
    ASSERT_FALSE(tooLong.ok());
    EXPECT_TRUE(tooLong.error().message.contains(QLatin1String("255")));
    EXPECT_FALSE(IdempotencyKey::parse("", true).ok());
    EXPECT_FALSE(IdempotencyKey::parse("\"\"", true).ok());
    EXPECT_FALSE(IdempotencyKey::parse("caf\xc3\xa9", true).ok());
    auto missing = IdempotencyKey::parse({}, false);
    ASSERT_FALSE(missing.ok());
    EXPECT_TRUE(missing.error().message.contains(QLatin1String("required")));
}

TEST(Fingerprint, IgnoresFieldOrderButNotValues)
{
    Fingerprint a(QStringLiteral("POST /v1/charges"));
    a.add(QStringLiteral("amount"), qint64(100))
        .add(QStringLiteral("currency"), QStringLiteral("USD"));
    Fingerprint b(QStringLiteral("POST /v1/charges"));
    b.add(QStringLiteral("currency"), QStringLiteral("USD"))
        .add(QStringLiteral("amount"), qint64(100));
    EXPECT_EQ(a.hash(), b.hash());
    Fingerprint c(QStringLiteral("POST /v1/charges"));
    c.add(QStringLiteral("currency"), QStringLiteral("USD"))
        .add(QStringLiteral("amount"), qint64(101));
    EXPECT_NE(a.hash(), c.hash());
    Fingerprint d(QStringLiteral("POST /v1/refunds"));
    d.add(QStringLiteral("amount"), qint64(100))
        .add(QStringLiteral("currency"), QStringLiteral("USD"));
    EXPECT_NE(a.hash(), d.hash()) << "the endpoint is part of the fingerprint";
}

TEST(Fingerprint, AValueCannotImpersonateAFieldBoundary)
{
    Fingerprint a(QStringLiteral("e"));
    a.add(QStringLiteral("x"), QStringLiteral("1\ny=2"));
    Fingerprint b(QStringLiteral("e"));
    b.add(QStringLiteral("x"), QStringLiteral("1")).add(QStringLiteral("y"), QStringLiteral("2"));
    EXPECT_NE(a.hash(), b.hash());
}

TEST(IdempotencyStore, RetryAfterComesFromTheExpectedDuration)
{
    IdempotencyRecord record;
    record.expectedDurationMs = 5000;
    record.lockAgeMs = 1200;
    EXPECT_EQ(IdempotencyStore::retryAfterSeconds(record), 4);
    record.lockAgeMs = 9000;
    EXPECT_EQ(IdempotencyStore::retryAfterSeconds(record), 1) << "never less than a second";
}

namespace {

IdempotencyRecord takenBy(const QByteArray &requestHash, bool processing, qint64 lockAgeMs)
{
    IdempotencyRecord record;
    record.requestHash = requestHash;
    record.processing = processing;
    record.lockAgeMs = lockAgeMs;
    return record;
}

} // namespace

TEST(TakenKey, AnotherRequestNeverSeesTheKeptResponse)
{
    // A different request on a finished key is a mismatch, not a replay.
    EXPECT_EQ(readTakenKey(takenBy("first", false, 0), "second", 30000), TakenKey::Mismatch);
    EXPECT_EQ(readTakenKey(takenBy("first", true, 60000), "second", 30000), TakenKey::Mismatch);
    EXPECT_EQ(readTakenKey(takenBy("first", false, 0), "first", 30000), TakenKey::Finished);
    EXPECT_EQ(readTakenKey(std::nullopt, "first", 30000), TakenKey::Vanished);
}

TEST(TakenKey, AHolderIsPresumedDeadOnlyPastTheLockTimeout)
{
    EXPECT_EQ(readTakenKey(takenBy("first", true, 29999), "first", 30000), TakenKey::Running);
    EXPECT_EQ(readTakenKey(takenBy("first", true, 30000), "first", 30000), TakenKey::Running);
    EXPECT_EQ(readTakenKey(takenBy("first", true, 30001), "first", 30000), TakenKey::Stale);
    // A finished key is never taken over, however old its lock.
    EXPECT_EQ(readTakenKey(takenBy("first", false, 90000), "first", 30000), TakenKey::Finished);
}
