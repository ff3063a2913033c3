// The saga engine's rules that need no database: how participants' answers
// read, how retries back off, how a TCC becomes steps, how hosts are bounded.

#include "PlainHttpRefused.h"
#include "QtPrinters.h"

#include "core/saga/Backoff.h"
#include "core/saga/HostLimiter.h"
#include "core/saga/HttpParticipant.h"
#include "core/saga/SagaDefinition.h"

#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonObject>

namespace keel {
namespace {

using Verdict = StepAnswer::Verdict;

TEST(ParticipantAnswers, StatusCodesReadTheWayDtmDefinesThem)
{
    EXPECT_EQ(HttpParticipant::interpret(200, "{}", {}).verdict, Verdict::Succeeded);
    EXPECT_EQ(HttpParticipant::interpret(204, "", {}).verdict, Verdict::Succeeded);
    EXPECT_EQ(HttpParticipant::interpret(409, "{}", {}).verdict, Verdict::Failed);
    EXPECT_EQ(HttpParticipant::interpret(425, "{}", {}).verdict, Verdict::Ongoing);
    EXPECT_EQ(HttpParticipant::interpret(500, "{}", {}).verdict, Verdict::Retryable);
    EXPECT_EQ(HttpParticipant::interpret(400, "{}", {}).verdict, Verdict::Retryable);
    const StepAnswer silent = HttpParticipant::interpret(0, {}, QStringLiteral("timed out"));
    EXPECT_EQ(silent.verdict, Verdict::Retryable);
    EXPECT_TRUE(silent.error.contains(QLatin1String("timed out")));
}

TEST(ParticipantAnswers, ADtmResultInTheBodyDecidesOverTheStatus)
{
    EXPECT_EQ(HttpParticipant::interpret(200, R"({"dtm_result":"FAILURE"})", {}).verdict,
              Verdict::Failed);
    EXPECT_EQ(HttpParticipant::interpret(200, R"({"dtm_result":"ONGOING"})", {}).verdict,
              Verdict::Ongoing);
    EXPECT_EQ(HttpParticipant::interpret(500, R"({"dtm_result":"SUCCESS"})", {}).verdict,
              Verdict::Succeeded);
    EXPECT_EQ(HttpParticipant::interpret(200, QByteArray(2000, 'x'), {}).excerpt.size(), 500);
}

TEST(Backoff, DoublesPerFailureWithinItsCapAndJittersInTheUpperHalf)
{
    RetryPolicy policy;
    policy.backoffMs = 100;
    policy.maxBackoffMs = 1000;
    for (int i = 0; i < 200; ++i) {
        const int first = backoffMs(policy, 1);
        EXPECT_GE(first, 50);
        EXPECT_LE(first, 100);
        const int third = backoffMs(policy, 3);
        EXPECT_GE(third, 200);
        EXPECT_LE(third, 400);
        const int late = backoffMs(policy, 40);
        EXPECT_GE(late, 500);
        EXPECT_LE(late, 1000);
    }
    policy.backoffMs = 0;
    EXPECT_EQ(backoffMs(policy, 5), 0);
}

TEST(TccDefinition, EveryTryComesBeforeEveryConfirmOnTheSameBranchIds)
{
    const QJsonObject json{
        {QStringLiteral("name"), QStringLiteral("transfer")},
        {QStringLiteral("branches"),
         QJsonArray{
             QJsonObject{{QStringLiteral("name"), QStringLiteral("out")},
                         {QStringLiteral("try_url"), QStringLiteral("http://a/try")},
                         {QStringLiteral("confirm_url"), QStringLiteral("http://a/confirm")},
                         {QStringLiteral("cancel_url"), QStringLiteral("http://a/cancel")}},
             QJsonObject{{QStringLiteral("name"), QStringLiteral("in")},
                         {QStringLiteral("try_url"), QStringLiteral("http://b/try")},
                         {QStringLiteral("confirm_url"), QStringLiteral("http://b/confirm")},
                         {QStringLiteral("cancel_url"), QStringLiteral("http://b/cancel")}}}}};
    Result<SagaDefinition> tcc = SagaDefinition::parseTcc(json);
    ASSERT_TRUE(tcc.ok()) << qPrintable(tcc.error().message);
    EXPECT_EQ(tcc->transType, QStringLiteral("tcc"));
    ASSERT_EQ(tcc->steps.size(), 4);
    EXPECT_EQ(tcc->steps[0].operation, QStringLiteral("try"));
    EXPECT_EQ(tcc->steps[0].compensateOperation, QStringLiteral("cancel"));
    EXPECT_EQ(tcc->steps[0].compensateUrl, QStringLiteral("http://a/cancel"));
    EXPECT_EQ(tcc->steps[1].branchId, QStringLiteral("02"));
    EXPECT_EQ(tcc->steps[2].operation, QStringLiteral("confirm"));
    EXPECT_EQ(tcc->steps[2].branchId, QStringLiteral("01"));
    EXPECT_TRUE(tcc->steps[2].commitPhase);
    EXPECT_FALSE(tcc->steps[2].compensable());
    // What is stored reads back the same.
    const SagaStepDefinition stored = SagaStepDefinition::fromStored(
        tcc->steps[0].name, tcc->steps[0].kind, tcc->steps[0].toJson());
    EXPECT_EQ(stored.operation, QStringLiteral("try"));
    EXPECT_EQ(stored.branchId, QStringLiteral("01"));
    EXPECT_TRUE(stored.compensateFailed);

    QJsonObject broken = json;
    QJsonArray branches = broken.value(QStringLiteral("branches")).toArray();
    QJsonObject second = branches.at(1).toObject();
    second.remove(QStringLiteral("cancel_url"));
    branches.replace(1, second);
    broken.insert(QStringLiteral("branches"), branches);
    Result<SagaDefinition> refused = SagaDefinition::parseTcc(broken);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().field, QStringLiteral("branches[1].cancel_url"));
}

// A deployment calls participants over TLS: an http:// one is refused
// where the definition comes in, naming the field, unless --allow-http.
TEST(TccDefinition, APlainHttpParticipantIsRefusedUnlessTheDeploymentAllowsIt)
{
    auto branch = [](const QString &scheme) {
        return QJsonObject{
            {QStringLiteral("name"), QStringLiteral("out")},
            {QStringLiteral("try_url"), QString(scheme + QStringLiteral("://a/try"))},
            {QStringLiteral("confirm_url"), QStringLiteral("https://a/confirm")},
            {QStringLiteral("cancel_url"), QStringLiteral("https://a/cancel")}};
    };
    auto transfer = [&](const QString &scheme) {
        return QJsonObject{{QStringLiteral("name"), QStringLiteral("transfer")},
                           {QStringLiteral("branches"), QJsonArray{branch(scheme)}}};
    };
    {
        test::PlainHttpRefused refused;
        const Result<SagaDefinition> plain =
            SagaDefinition::parseTcc(transfer(QStringLiteral("http")));
        ASSERT_FALSE(plain.ok());
        EXPECT_EQ(plain.error().field, QStringLiteral("branches[0].try_url"))
            << qPrintable(plain.error().message);
        EXPECT_TRUE(plain.error().message.contains(QLatin1String("plain http://")))
            << qPrintable(plain.error().message);
        EXPECT_TRUE(SagaDefinition::parseTcc(transfer(QStringLiteral("https"))).ok());
        EXPECT_FALSE(SagaDefinition::parseTcc(transfer(QStringLiteral("ftp"))).ok());
    }
    EXPECT_TRUE(SagaDefinition::parseTcc(transfer(QStringLiteral("http"))).ok())
        << "allowed again once the deployment allows it";
}

TEST(HostLimiter, AFullHostMakesCallersWaitAndOtherHostsDoNot)
{
    HostLimiter limiter(1);
    HostLimiter::Slot first = limiter.acquire(QStringLiteral("slow:80"), 10);
    ASSERT_TRUE(first);
    EXPECT_FALSE(limiter.acquire(QStringLiteral("slow:80"), 10));
    EXPECT_TRUE(limiter.acquire(QStringLiteral("fast:80"), 10));
    {
        HostLimiter::Slot moved(std::move(first));
        EXPECT_EQ(limiter.inFlight(QStringLiteral("slow:80")), 1);
    }
    EXPECT_EQ(limiter.inFlight(QStringLiteral("slow:80")), 0);
    EXPECT_TRUE(limiter.acquire(QStringLiteral("slow:80"), 10));
}

} // namespace
} // namespace keel
