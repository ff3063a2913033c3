// WeChat Pay API v3 on the wire, with keel as the caller: the Authorization
// header checked against vectors made without keel
// (tests/data/signing/make-wechatpay-api-vectors: the openssl command line
// and Python's standard library), and what each kind of answer means for money.

#include "QtPrinters.h"

#include "core/channel/WechatPayApi.h"
#include "core/signing/RsaKey.h"
#include "core/signing/WechatPaySignature.h"

#include <gtest/gtest.h>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

namespace keel {
namespace {

using WechatPayApi::Meaning;
using WechatPayApi::Operation;

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

QByteArray headerOf(const QByteArray &headers, const QByteArray &name)
{
    for (const QByteArray &line : headers.split('\n'))
        if (line.startsWith(QByteArray(name + ": ")))
            return line.mid(name.size() + 2).trimmed();
    return {};
}

Meaning meaningOf(Operation operation, int status, const QByteArray &json)
{
    return WechatPayApi::classify(operation, status, QJsonDocument::fromJson(json).object())
        .meaning;
}

Meaning stateMeaning(Operation operation, const char *field, const char *state)
{
    return meaningOf(operation, 200, QByteArray("{\"") + field + "\":\"" + state + "\"}");
}

} // namespace

// The merchant's key signs "<METHOD>\n<path and query>\n<timestamp>\n<nonce>\n<body>\n";
// the header carries it with the certificate's serial, exactly as the vector.
TEST(WechatPayApiTest, ARequestIsAuthorizedAsTheVectorIs)
{
    const RsaKey merchant = key("wechatpay-merchant.key");
    const RsaKey certificate = key("wechatpay-merchant.crt");
    const QByteArray serial = certificate.certificateSerial().toLatin1();
    const Result<QByteArray> post =
        WechatPayApi::authorize("POST", "/v3/refund/domestic/refunds",
                                vector("wechatpay-request.body"), QStringLiteral("1900000001"),
                                serial, merchant, 1764554400, "593BEC0C930BF1AFEB40B4A08C8FB242");
    ASSERT_TRUE(post.ok());
    EXPECT_EQ(*post, vector("wechatpay-request.authorization"));
    // A GET signs its query string and an empty body.
    const Result<QByteArray> get = WechatPayApi::authorize(
        "GET", "/v3/pay/transactions/out-trade-no/ch_golden04?mchid=1900000001", {},
        QStringLiteral("1900000001"), serial, merchant, 1764554401,
        "0F8A8E3B1C3A4D6E9B2C7D5E1F0A9B8C");
    ASSERT_TRUE(get.ok());
    EXPECT_EQ(*get, vector("wechatpay-query.authorization"));
}

// What WeChat Pay reads from the header: the fields, and a signature the
// merchant's certificate verifies over the same message.
TEST(WechatPayApiTest, AnAuthorizationReadsBackAndVerifiesWithTheMerchantsCertificate)
{
    const std::optional<WechatPayApi::Authorization> read =
        WechatPayApi::readAuthorization(vector("wechatpay-request.authorization"));
    ASSERT_TRUE(read.has_value());
    EXPECT_EQ(read->mchid, QStringLiteral("1900000001"));
    EXPECT_EQ(read->timestamp, QByteArray("1764554400"));
    EXPECT_EQ(read->serial, key("wechatpay-merchant.crt").certificateSerial().toLatin1());
    const auto signature = QByteArray::fromBase64Encoding(read->signature);
    const QByteArray message =
        WechatPayApi::requestMessage("POST", "/v3/refund/domestic/refunds", read->timestamp,
                                     read->nonce, vector("wechatpay-request.body"));
    EXPECT_TRUE(key("wechatpay-merchant.crt").verifySha256(message, signature.decoded));
    EXPECT_FALSE(
        key("wechatpay-merchant.crt").verifySha256(message + "tampered", signature.decoded));
    for (const QByteArray &malformed :
         {QByteArray("WECHATPAY2-SHA256-RSA2048 mchid=1900000001"), QByteArray("Bearer abc"),
          QByteArray("WECHATPAY2-SHA256-RSA2048 mchid=\"1\",nonce_str=\"n\",timestamp=\"1\""),
          QByteArray()})
        EXPECT_FALSE(WechatPayApi::readAuthorization(malformed).has_value())
            << malformed.constData();
}

// An answer signed by the platform key over "<timestamp>\n<nonce>\n<body>\n"
// verifies with the platform certificate its Wechatpay-Serial names, and
// with nothing else.
TEST(WechatPayApiTest, AnAnswerVerifiesOnlyWithThePlatformCertificateItNames)
{
    const QByteArray headers = vector("wechatpay-answer.headers");
    const WechatPayHeaders signedBy{
        headerOf(headers, "Wechatpay-Timestamp"), headerOf(headers, "Wechatpay-Nonce"),
        headerOf(headers, "Wechatpay-Serial"), headerOf(headers, "Wechatpay-Signature")};
    const QByteArray body = vector("wechatpay-answer.body");
    const qint64 at = signedBy.timestamp.toLongLong();
    EXPECT_EQ(WechatPaySignature::verify(signedBy, body, {key("wechatpay.crt")}, at),
              SignatureVerdict::Valid);
    EXPECT_EQ(WechatPaySignature::verify(signedBy, body + " ", {key("wechatpay.crt")}, at),
              SignatureVerdict::Mismatch);
    EXPECT_EQ(WechatPaySignature::verify(signedBy, body, {key("wechatpay-merchant.crt")}, at),
              SignatureVerdict::UnknownKey);
    EXPECT_EQ(meaningOf(Operation::TradeQuery, 200, body), Meaning::Done);
}

// A payment: paid, refused before any money moved, or in doubt. Every
// family WeChat Pay answers with, and anything new reads as in doubt.
TEST(WechatPayApiTest, APaymentsAnswersMeanWhatTheirFamilySays)
{
    EXPECT_EQ(meaningOf(Operation::Pay, 200, R"({"trade_state":"SUCCESS"})"), Meaning::Done);
    EXPECT_EQ(meaningOf(Operation::Pay, 403, R"({"code":"ORDERPAID"})"), Meaning::Done);
    for (const char *refusal :
         {R"({"code":"NOT_ENOUGH"})", R"({"code":"AUTH_CODE_EXPIRE"})", R"({"code":"PARAM_ERROR"})",
          R"({"code":"TRADE_ERROR"})", R"({"code":"ORDER_CLOSED"})"})
        EXPECT_EQ(meaningOf(Operation::Pay, 403, refusal), Meaning::Refused) << refusal;
    EXPECT_EQ(meaningOf(Operation::Pay, 401, R"({"code":"SIGN_ERROR"})"), Meaning::Refused);
    for (const auto &[status, json] :
         {std::pair{202, R"({"code":"USERPAYING"})"},
          std::pair{200, R"({"trade_state":"USERPAYING"})"},
          std::pair{500, R"({"code":"SYSTEM_ERROR"})"},
          std::pair{429, R"({"code":"FREQUENCY_LIMITED"})"},
          std::pair{403, R"({"code":"SOMETHING_NEW"})"}, std::pair{502, ""},
          std::pair{404, R"({"code":"ORDER_NOT_EXIST"})"}})
        EXPECT_EQ(meaningOf(Operation::Pay, status, json), Meaning::InDoubt) << json;
}

// An order query: paid (even if refunded since), closed with nothing kept,
// not there, or in doubt while the payer may still pay.
TEST(WechatPayApiTest, AnOrderQuerysAnswersMeanWhatTheStateSays)
{
    for (const char *paid : {"SUCCESS", "REFUND"})
        EXPECT_EQ(stateMeaning(Operation::TradeQuery, "trade_state", paid), Meaning::Done) << paid;
    for (const char *closed : {"CLOSED", "REVOKED"})
        EXPECT_EQ(stateMeaning(Operation::TradeQuery, "trade_state", closed), Meaning::Refused)
            << closed;
    // PAYERROR: one attempt failed, and the payer may try again until the
    // order is reversed.
    for (const char *open : {"NOTPAY", "USERPAYING", "PAYERROR", "ACCEPT"})
        EXPECT_EQ(stateMeaning(Operation::TradeQuery, "trade_state", open), Meaning::InDoubt)
            << open;
    EXPECT_EQ(meaningOf(Operation::TradeQuery, 404, R"({"code":"ORDER_NOT_EXIST"})"),
              Meaning::NotFound);
    // A query that was rejected says nothing of the money.
    EXPECT_EQ(meaningOf(Operation::TradeQuery, 400, R"({"code":"PARAM_ERROR"})"), Meaning::InDoubt);
    EXPECT_EQ(meaningOf(Operation::TradeQuery, 500, R"({"code":"SYSTEM_ERROR"})"),
              Meaning::InDoubt);
}

// A refund and its query: made, closed (refused for good), refused as sent,
// or in doubt while WeChat Pay processes it.
TEST(WechatPayApiTest, ARefundsAnswersMeanWhatTheirFamilySays)
{
    EXPECT_EQ(meaningOf(Operation::Refund, 200, R"({"status":"SUCCESS"})"), Meaning::Done);
    EXPECT_EQ(meaningOf(Operation::Refund, 200, R"({"status":"PROCESSING"})"), Meaning::InDoubt);
    EXPECT_EQ(meaningOf(Operation::Refund, 200, R"({"status":"ABNORMAL"})"), Meaning::InDoubt);
    EXPECT_EQ(meaningOf(Operation::Refund, 200, R"({"status":"CLOSED"})"), Meaning::Refused);
    for (const char *refusal : {R"({"code":"NOT_ENOUGH"})", R"({"code":"INVALID_REQUEST"})",
                                R"({"code":"USER_ACCOUNT_ABNORMAL"})"})
        EXPECT_EQ(meaningOf(Operation::Refund, 403, refusal), Meaning::Refused) << refusal;
    EXPECT_EQ(meaningOf(Operation::Refund, 404, R"({"code":"RESOURCE_NOT_EXISTS"})"),
              Meaning::Refused);
    EXPECT_EQ(meaningOf(Operation::Refund, 500, R"({"code":"SYSTEM_ERROR"})"), Meaning::InDoubt);
    EXPECT_EQ(meaningOf(Operation::RefundQuery, 200, R"({"status":"SUCCESS"})"), Meaning::Done);
    EXPECT_EQ(meaningOf(Operation::RefundQuery, 200, R"({"status":"CLOSED"})"), Meaning::Refused);
    EXPECT_EQ(meaningOf(Operation::RefundQuery, 404, R"({"code":"RESOURCE_NOT_EXISTS"})"),
              Meaning::NotFound);
    EXPECT_EQ(meaningOf(Operation::RefundQuery, 403, R"({"code":"NO_AUTH"})"), Meaning::InDoubt);
}

// A reverse: accepted (a 200; the adapter then checks it names the order and
// asks the order what became of it), no such order, or not done. A body
// naming an error is an error whatever the status says: the signature covers
// the body, not the status line.
TEST(WechatPayApiTest, AReversesAnswersMeanWhatTheySay)
{
    EXPECT_EQ(meaningOf(Operation::Reverse, 200, R"({"out_trade_no":"ch_1"})"), Meaning::Done);
    EXPECT_EQ(meaningOf(Operation::Reverse, 204, ""), Meaning::InDoubt);
    EXPECT_EQ(meaningOf(Operation::Reverse, 200, R"({"code":"SYSTEM_ERROR"})"), Meaning::InDoubt);
    EXPECT_EQ(meaningOf(Operation::Pay, 200, R"({"code":"SYSTEM_ERROR","trade_state":"SUCCESS"})"),
              Meaning::InDoubt);
    EXPECT_EQ(meaningOf(Operation::Reverse, 404, R"({"code":"ORDER_NOT_EXIST"})"),
              Meaning::NotFound);
    // Not carried out: the order's own state then stands.
    EXPECT_EQ(meaningOf(Operation::Reverse, 403, R"({"code":"TRADE_ERROR"})"), Meaning::Refused);
    EXPECT_EQ(meaningOf(Operation::Reverse, 403, R"({"code":"SOMETHING_NEW"})"), Meaning::InDoubt);
    EXPECT_EQ(meaningOf(Operation::Reverse, 500, R"({"code":"SYSTEM_ERROR"})"), Meaning::InDoubt);
}

} // namespace keel
