// Alipay's OpenAPI on the wire, checked against vectors made without keel
// (tests/data/signing/make-openapi-vectors: the openssl command line and
// Python's standard library), and what each kind of answer means for money.

#include "QtPrinters.h"

#include "core/channel/AlipayOpenApi.h"
#include "core/signing/RsaKey.h"

#include <gtest/gtest.h>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimeZone>
#include <QUrlQuery>

#include <initializer_list>
#include <utility>

namespace keel {
namespace {

using AlipayOpenApi::Meaning;

QByteArray vector(const char *name)
{
    QFile file(QStringLiteral(KEEL_SOURCE_DIR "/tests/data/signing/") + QLatin1String(name));
    EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << name;
    return file.readAll();
}

RsaKey key(const char *name)
{
    Result<RsaKey> loaded = RsaKey::fromPem(vector(name), QString::fromLatin1(name));
    EXPECT_TRUE(loaded.ok()) << name;
    return loaded ? *loaded : RsaKey();
}

// The request vector's parameters, `sign` among them.
AlipaySignature::Parameters requestVector()
{
    const QJsonObject json = QJsonDocument::fromJson(vector("alipay-request.params")).object();
    AlipaySignature::Parameters parameters;
    for (auto it = json.begin(); it != json.end(); ++it)
        parameters.append({it.key(), it.value().toString()});
    return parameters;
}

QString valueOf(const AlipaySignature::Parameters &parameters, const char *key)
{
    for (const auto &[name, value] : parameters)
        if (name == QLatin1String(key))
            return value;
    return {};
}

} // namespace

// sign_type is signed in a request (not in a notification), empty values
// are not, and values go in raw: Chinese and '&' in biz_content included.
TEST(AlipayOpenApi, ARequestIsSignedAsOpensslSignedTheVector)
{
    const AlipaySignature::Parameters parameters = requestVector();
    EXPECT_EQ(AlipaySignature::requestSignString(parameters), vector("alipay-request.signstring"));
    AlipaySignature::Parameters unsigned_;
    for (const auto &parameter : parameters)
        if (parameter.first != QLatin1String("sign"))
            unsigned_.append(parameter);
    const Result<QString> sign = AlipaySignature::signRequest(unsigned_, key("alipay-app.key"));
    ASSERT_TRUE(sign.ok()) << qPrintable(sign.error().message);
    EXPECT_EQ(*sign, valueOf(parameters, "sign")) << "PKCS#1 v1.5 signs the same bytes the same";
}

// A call keel makes: Beijing time, RSA2, compact biz_content, a signature
// the app's public key verifies over the request's sign string, and a form
// body that reads back to the same values.
TEST(AlipayOpenApi, ACallCarriesItsProtocolParametersAndVerifies)
{
    AlipayOpenApi::Call call;
    call.appId = QStringLiteral("2021000000000001");
    call.method = QStringLiteral("alipay.trade.query");
    call.bizContent = {{QStringLiteral("out_trade_no"), QStringLiteral("ch_1 & 退款")}};
    call.at = QDateTime(QDate(2026, 12, 1), QTime(2, 0), QTimeZone(0));
    const Result<AlipaySignature::Parameters> parameters =
        AlipayOpenApi::signedCall(call, key("alipay-app.key"));
    ASSERT_TRUE(parameters.ok()) << qPrintable(parameters.error().message);
    EXPECT_EQ(valueOf(*parameters, "timestamp"), QStringLiteral("2026-12-01 10:00:00"));
    EXPECT_EQ(valueOf(*parameters, "sign_type"), QStringLiteral("RSA2"));
    EXPECT_EQ(valueOf(*parameters, "biz_content"),
              QStringLiteral("{\"out_trade_no\":\"ch_1 & 退款\"}"));
    const QByteArray signature = QByteArray::fromBase64(valueOf(*parameters, "sign").toLatin1());
    EXPECT_TRUE(key("alipay-app.pub")
                    .verifySha256(AlipaySignature::requestSignString(*parameters), signature));
    const QUrlQuery form(QString::fromLatin1(AlipayOpenApi::formBody(*parameters)));
    EXPECT_EQ(form.queryItemValue(QStringLiteral("biz_content"), QUrl::FullyDecoded),
              valueOf(*parameters, "biz_content"));
    EXPECT_EQ(form.queryItemValue(QStringLiteral("sign"), QUrl::FullyDecoded),
              valueOf(*parameters, "sign"));
}

// Alipay signs its response node's bytes exactly as sent: read out of the
// answer wherever it sits, it verifies with Alipay's key, and one changed
// amount or the wrong key does not.
TEST(AlipayOpenApi, AnAnswersResponseNodeVerifiesAsSent)
{
    const QByteArray body = vector("alipay-response.body");
    const RsaKey alipay = key("alipay.pub");
    const Result<AlipayOpenApi::Answer> answer =
        AlipayOpenApi::readAnswer(body, QStringLiteral("alipay.trade.refund"));
    ASSERT_TRUE(answer.ok()) << qPrintable(answer.error().message);
    EXPECT_EQ(answer->node, vector("alipay-response.node"));
    EXPECT_FALSE(answer->errorNode);
    EXPECT_EQ(answer->fields.value(QStringLiteral("refund_fee")).toString(),
              QStringLiteral("5.00"));
    EXPECT_EQ(AlipayOpenApi::verify(*answer, alipay), SignatureVerdict::Valid);
    EXPECT_EQ(AlipayOpenApi::verify(*answer, key("alipay-app.pub")), SignatureVerdict::Mismatch);

    QByteArray altered = body;
    altered.replace("\"refund_fee\":\"5.00\"", "\"refund_fee\":\"50.00\"");
    const auto forged = AlipayOpenApi::readAnswer(altered, QStringLiteral("alipay.trade.refund"));
    ASSERT_TRUE(forged.ok());
    EXPECT_EQ(AlipayOpenApi::verify(*forged, alipay), SignatureVerdict::Mismatch);

    // The signature first, the node last: the same bytes are found.
    const QByteArray reordered =
        "{\"sign\":\"" + answer->sign +
        "\", \"alipay_trade_refund_response\" : " + vector("alipay-response.node") + "}";
    const auto moved = AlipayOpenApi::readAnswer(reordered, QStringLiteral("alipay.trade.refund"));
    ASSERT_TRUE(moved.ok());
    EXPECT_EQ(AlipayOpenApi::verify(*moved, alipay), SignatureVerdict::Valid);

    // Refused before the method ran, unsigned: an error node, not verified.
    const auto refused = AlipayOpenApi::readAnswer(
        R"({"error_response":{"code":"40002","msg":"Invalid Arguments","sub_code":"isv.invalid-app-id"}})",
        QStringLiteral("alipay.trade.refund"));
    ASSERT_TRUE(refused.ok());
    EXPECT_TRUE(refused->errorNode);
    EXPECT_EQ(AlipayOpenApi::verify(*refused, alipay), SignatureVerdict::Malformed);

    EXPECT_FALSE(
        AlipayOpenApi::readAnswer("<html>502</html>", QStringLiteral("alipay.trade.refund")).ok());
    EXPECT_FALSE(AlipayOpenApi::readAnswer(body, QStringLiteral("alipay.trade.pay")).ok())
        << "another method's answer is not this one's";
}

// What each family of code and sub_code means, method by method: only
// what certainly left the money where it was is Refused; what is unknown
// is in doubt.
static void expectMeanings(const char *method,
                           std::initializer_list<std::pair<const char *, Meaning>> cases)
{
    for (const auto &[fields, meaning] : cases) {
        const AlipayOpenApi::Reading reading = AlipayOpenApi::classify(
            QString::fromLatin1(method), QJsonDocument::fromJson(fields).object());
        EXPECT_EQ(int(reading.meaning), int(meaning))
            << method << ' ' << fields << " -> " << qPrintable(reading.why);
    }
}

TEST(AlipayOpenApi, APaysCodesMeanWhatTheySayForTheMoney)
{
    expectMeanings(
        "alipay.trade.pay",
        {
            {R"({"code":"10000","msg":"Success"})", Meaning::Done},
            {R"({"code":"10003","msg":"order success pay inprocess"})", Meaning::InDoubt},
            {R"({"code":"20000","sub_code":"isp.unknow-error"})", Meaning::InDoubt},
            {R"({"code":"20001","sub_code":"aop.invalid-auth-token"})", Meaning::Refused},
            {R"({"code":"40001","sub_code":"isv.missing-method"})", Meaning::Refused},
            {R"({"code":"40002","sub_code":"isv.invalid-signature"})", Meaning::Refused},
            {R"({"code":"40006","sub_code":"isv.insufficient-isv-permissions"})", Meaning::Refused},
            {R"({"code":"40004","sub_code":"ACQ.SYSTEM_ERROR"})", Meaning::InDoubt},
            {R"({"code":"40004","sub_code":"ACQ.BUYER_BALANCE_NOT_ENOUGH"})", Meaning::Refused},
            {R"({"code":"40004","sub_code":"ACQ.PAYMENT_AUTH_CODE_INVALID"})", Meaning::Refused},
            {R"({"code":"40004","sub_code":"ACQ.TRADE_HAS_SUCCESS"})", Meaning::Done},
            {R"({"code":"40004","sub_code":"ACQ.CONTEXT_INCONSISTENT"})", Meaning::InDoubt},
            {R"({"code":"40004","sub_code":"ACQ.NOT_YET_DOCUMENTED"})", Meaning::InDoubt},
            {R"({"code":"40004","sub_code":"ACQ.TRADE_STATUS_ERROR"})", Meaning::InDoubt},
            {R"({"code":"40004","sub_code":"ACQ.TRADE_BUYER_NOT_MATCH"})", Meaning::InDoubt},
            {R"({"code":"99999"})", Meaning::InDoubt},
            {R"({})", Meaning::InDoubt},
        });
}

TEST(AlipayOpenApi, ARefundsCodesMeanWhatTheySayForTheMoney)
{
    expectMeanings(
        "alipay.trade.refund",
        {
            {R"({"code":"10000","fund_change":"Y"})", Meaning::Done},
            {R"({"code":"10000","fund_change":"N"})", Meaning::InDoubt},
            {R"({"code":"40004","sub_code":"ACQ.SELLER_BALANCE_NOT_ENOUGH"})", Meaning::Refused},
            {R"({"code":"40004","sub_code":"ACQ.TRADE_NOT_EXIST"})", Meaning::Refused},
            {R"({"code":"40004","sub_code":"ACQ.DISCORDANT_REPEAT_REQUEST"})", Meaning::InDoubt},
            {R"({"code":"40004","sub_code":"ACQ.SYSTEM_ERROR"})", Meaning::InDoubt},
        });
}

// A trade closed with a payment on it was paid, then refunded or cancelled.
TEST(AlipayOpenApi, AQueryReadsTheTradesStatus)
{
    expectMeanings(
        "alipay.trade.query",
        {
            {R"({"code":"10000","trade_status":"TRADE_SUCCESS"})", Meaning::Done},
            {R"({"code":"10000","trade_status":"TRADE_FINISHED"})", Meaning::Done},
            {R"({"code":"10000","trade_status":"WAIT_BUYER_PAY"})", Meaning::InDoubt},
            {R"({"code":"10000","trade_status":"TRADE_CLOSED"})", Meaning::Refused},
            {R"({"code":"10000","trade_status":"TRADE_CLOSED","send_pay_date":"2026-12-01 10:00:00"})",
             Meaning::InDoubt},
            {R"({"code":"10000","trade_status":"TRADE_CLOSED","buyer_pay_amount":"0.01"})",
             Meaning::InDoubt},
            {R"({"code":"10000","trade_status":"TRADE_CLOSED","buyer_pay_amount":"0.00"})",
             Meaning::Refused},
            {R"({"code":"40004","sub_code":"ACQ.TRADE_NOT_EXIST"})", Meaning::NotFound},
            {R"({"code":"40002","sub_code":"isv.invalid-signature"})", Meaning::InDoubt},
        });
}

// A close of a trade Alipay does not know cannot stop a payment on its way.
TEST(AlipayOpenApi, ARefundQueryAndACloseMeanWhatTheySay)
{
    expectMeanings(
        "alipay.trade.fastpay.refund.query",
        {
            {R"({"code":"10000","refund_amount":"5.00","refund_status":"REFUND_SUCCESS"})",
             Meaning::Done},
            {R"({"code":"10000","refund_amount":"5.00"})", Meaning::Done},
            {R"({"code":"10000","out_trade_no":"ch_1"})", Meaning::NotFound},
        });
    expectMeanings(
        "alipay.trade.close",
        {
            {R"({"code":"10000"})", Meaning::Done},
            {R"({"code":"40004","sub_code":"ACQ.TRADE_NOT_EXIST"})", Meaning::InDoubt},
            {R"({"code":"40004","sub_code":"ACQ.TRADE_STATUS_ERROR"})", Meaning::InDoubt},
        });
    // A cancel Alipay wants repeated has not finished; one it refused
    // (paid, past the day's window) is for a query to read.
    expectMeanings("alipay.trade.cancel",
                   {
                       {R"({"code":"10000","action":"close","retry_flag":"N"})", Meaning::Done},
                       {R"({"code":"10000","action":"refund"})", Meaning::Done},
                       {R"({"code":"10000","retry_flag":"Y"})", Meaning::InDoubt},
                       {R"({"code":"40004","sub_code":"ACQ.TRADE_HAS_SUCCESS"})", Meaning::InDoubt},
                       {R"({"code":"20000","sub_code":"ACQ.SYSTEM_ERROR"})", Meaning::InDoubt},
                   });
}

} // namespace keel
