// Keel's signature checks against golden vectors made by independent tools
// (tests/data/signing/make-vectors: the openssl command line and Python's
// cryptography, following each vendor's documented algorithm), and every
// rejection each scheme must give.

#include "core/api/RequestParams.h"
#include "core/signing/AesGcm.h"
#include "core/signing/AlipaySignature.h"
#include "core/signing/RsaKey.h"
#include "core/signing/StripeSignature.h"
#include "core/signing/WechatPaySignature.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

#include <gtest/gtest.h>

using namespace keel;

namespace {

QByteArray vector(const char *name)
{
    QFile file(QStringLiteral(KEEL_SOURCE_DIR "/tests/data/signing/") + QLatin1String(name));
    EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << name;
    return file.readAll();
}

RsaKey key(const char *name)
{
    Result<RsaKey> parsed = RsaKey::fromPem(vector(name), QString::fromLatin1(name));
    EXPECT_TRUE(parsed.ok()) << name;
    return parsed ? *parsed : RsaKey();
}

// ---- Stripe ----------------------------------------------------------------

constexpr qint64 StripeSignedAt = 1764547200;

TEST(StripeSignatureTest, KeelSignsExactlyTheGoldenHeader)
{
    EXPECT_EQ(
        StripeSignature::header(vector("stripe.secret"), StripeSignedAt, vector("stripe.body")),
        vector("stripe.header"));
}

TEST(StripeSignatureTest, TheGoldenHeaderVerifiesWithinTheTolerance)
{
    const QList<QByteArray> secrets{vector("stripe.secret")};
    for (const qint64 now : {StripeSignedAt, StripeSignedAt + 300, StripeSignedAt - 300})
        EXPECT_EQ(
            StripeSignature::verify(vector("stripe.header"), vector("stripe.body"), secrets, now),
            SignatureVerdict::Valid);
}

TEST(StripeSignatureTest, AnyAlteredByteIsAMismatch)
{
    const QByteArray body = vector("stripe.body");
    const QList<QByteArray> secrets{vector("stripe.secret")};
    for (qsizetype at : {qsizetype(0), body.size() / 2, body.size() - 1}) {
        QByteArray altered = body;
        altered[at] = char(altered[at] ^ 0x01);
        EXPECT_EQ(
            StripeSignature::verify(vector("stripe.header"), altered, secrets, StripeSignedAt),
            SignatureVerdict::Mismatch);
    }
    EXPECT_EQ(
        StripeSignature::verify(vector("stripe.header"), body, {"whsec_other"}, StripeSignedAt),
        SignatureVerdict::Mismatch);
}

TEST(StripeSignatureTest, ReplaysOutsideTheToleranceAreRejected)
{
    EXPECT_EQ(StripeSignature::verify(vector("stripe.header"), vector("stripe.body"),
                                      {vector("stripe.secret")}, StripeSignedAt + 301),
              SignatureVerdict::OutsideWindow);
}

TEST(StripeSignatureTest, OneOfSeveralSignaturesAndSecretsIsEnough)
{
    const QByteArray golden = vector("stripe.header");
    const QByteArray withOthers = golden.left(golden.indexOf(',')) +
                                  ",v0=deadbeef,v1=" + QByteArray(64, 'a') +
                                  golden.mid(golden.indexOf(','));
    EXPECT_EQ(StripeSignature::verify(withOthers, vector("stripe.body"),
                                      {"whsec_rotatedAway", vector("stripe.secret")},
                                      StripeSignedAt),
              SignatureVerdict::Valid);
}

TEST(StripeSignatureTest, UnreadableHeadersAreMalformed)
{
    const QByteArray body = vector("stripe.body");
    for (const QByteArray &header :
         {QByteArray(), QByteArray("garbage"), QByteArray("t=1764547200"), QByteArray("v1=abcd"),
          QByteArray("t=abc,v1=abcd"), QByteArray("t=-5,v1=abcd"), QByteArray("t=1,t=2,v1=abcd"),
          QByteArray("t=1764547200,v0=abcd")})
        EXPECT_EQ(StripeSignature::verify(header, body, {vector("stripe.secret")}, StripeSignedAt),
                  SignatureVerdict::Malformed)
            << header.constData();
}

// ---- Alipay RSA2 -----------------------------------------------------------

AlipaySignature::Parameters alipayParameters(const QByteArray &body)
{
    Result<RequestParams> form = RequestParams::fromForm(body);
    EXPECT_TRUE(form.ok());
    return form ? form->entries() : AlipaySignature::Parameters();
}

void setParameter(AlipaySignature::Parameters &parameters, const char *key, const QString &value)
{
    for (auto &[name, current] : parameters)
        if (name == QLatin1String(key))
            current = value;
}

TEST(AlipaySignatureTest, TheSignStringFollowsAlipaysRules)
{
    EXPECT_EQ(AlipaySignature::signString(alipayParameters(vector("alipay.body"))),
              vector("alipay.signstring"));
}

TEST(AlipaySignatureTest, TheGoldenNotificationVerifiesAndKeelSignsItIdentically)
{
    const AlipaySignature::Parameters parameters = alipayParameters(vector("alipay.body"));
    EXPECT_EQ(AlipaySignature::verify(parameters, key("alipay.pub")), SignatureVerdict::Valid);
    QString golden;
    for (const auto &[name, value] : parameters)
        if (name == QLatin1String("sign"))
            golden = value;
    Result<QString> signedByKeel = AlipaySignature::sign(parameters, key("alipay.key"));
    ASSERT_TRUE(signedByKeel.ok());
    EXPECT_EQ(*signedByKeel, golden); // PKCS#1 v1.5 is deterministic
}

TEST(AlipaySignatureTest, AlipaysOneLinePublicKeyIsAccepted)
{
    QByteArray body = vector("alipay.pub");
    body.replace("-----BEGIN PUBLIC KEY-----", "").replace("-----END PUBLIC KEY-----", "");
    Result<RsaKey> oneLine = RsaKey::fromBase64PublicKey(body.simplified(), QStringLiteral("key"));
    ASSERT_TRUE(oneLine.ok());
    EXPECT_EQ(AlipaySignature::verify(alipayParameters(vector("alipay.body")), *oneLine),
              SignatureVerdict::Valid);
}

TEST(AlipaySignatureTest, AlteredValuesAndOtherKeysAreMismatches)
{
    AlipaySignature::Parameters altered = alipayParameters(vector("alipay.body"));
    setParameter(altered, "total_amount", QStringLiteral("19.98"));
    EXPECT_EQ(AlipaySignature::verify(altered, key("alipay.pub")), SignatureVerdict::Mismatch);
    AlipaySignature::Parameters added = alipayParameters(vector("alipay.body"));
    added.append({QStringLiteral("refund_fee"), QStringLiteral("1.00")});
    EXPECT_EQ(AlipaySignature::verify(added, key("alipay.pub")), SignatureVerdict::Mismatch);
    EXPECT_EQ(
        AlipaySignature::verify(alipayParameters(vector("alipay.body")), key("wechatpay.crt")),
        SignatureVerdict::Mismatch);
}

TEST(AlipaySignatureTest, MissingOrForeignSignaturesAreMalformed)
{
    AlipaySignature::Parameters rsa1 = alipayParameters(vector("alipay.body"));
    setParameter(rsa1, "sign_type", QStringLiteral("RSA"));
    EXPECT_EQ(AlipaySignature::verify(rsa1, key("alipay.pub")), SignatureVerdict::Malformed);
    AlipaySignature::Parameters unsignedOne = alipayParameters(vector("alipay.body"));
    setParameter(unsignedOne, "sign", QString());
    EXPECT_EQ(AlipaySignature::verify(unsignedOne, key("alipay.pub")), SignatureVerdict::Malformed);
    AlipaySignature::Parameters notBase64 = alipayParameters(vector("alipay.body"));
    setParameter(notBase64, "sign", QStringLiteral("***"));
    EXPECT_EQ(AlipaySignature::verify(notBase64, key("alipay.pub")), SignatureVerdict::Malformed);
}

// ---- WeChat Pay API v3 -----------------------------------------------------

WechatPayHeaders wechatHeaders()
{
    WechatPayHeaders headers;
    for (const QByteArray &line : vector("wechatpay.headers").split('\n')) {
        const qsizetype colon = line.indexOf(':');
        const QByteArray name = line.left(colon);
        const QByteArray value = line.mid(colon + 1).trimmed();
        if (name == "Wechatpay-Timestamp")
            headers.timestamp = value;
        else if (name == "Wechatpay-Nonce")
            headers.nonce = value;
        else if (name == "Wechatpay-Serial")
            headers.serial = value;
        else if (name == "Wechatpay-Signature")
            headers.signature = value;
    }
    return headers;
}

TEST(WechatPaySignatureTest, TheCertificateSerialIsReadAsWechatPayWritesIt)
{
    EXPECT_EQ(key("wechatpay.crt").certificateSerial(),
              QString::fromLatin1(wechatHeaders().serial));
}

TEST(WechatPaySignatureTest, TheGoldenNotificationVerifiesAndKeelSignsItIdentically)
{
    const WechatPayHeaders headers = wechatHeaders();
    const qint64 signedAt = headers.timestamp.toLongLong();
    EXPECT_EQ(WechatPaySignature::verify(headers, vector("wechatpay.body"),
                                         {key("alipay.pub"), key("wechatpay.crt")}, signedAt + 299),
              SignatureVerdict::Valid);
    Result<WechatPayHeaders> resigned = WechatPaySignature::sign(
        vector("wechatpay.body"), key("wechatpay.key"), headers.serial, signedAt, headers.nonce);
    ASSERT_TRUE(resigned.ok());
    EXPECT_EQ(resigned->signature, headers.signature);
}

TEST(WechatPaySignatureTest, EachRejection)
{
    const WechatPayHeaders headers = wechatHeaders();
    const qint64 at = headers.timestamp.toLongLong();
    const QByteArray body = vector("wechatpay.body");
    const QList<RsaKey> certificates{key("wechatpay.crt")};
    QByteArray altered = body;
    altered[altered.size() / 2] = char(altered[altered.size() / 2] ^ 0x20);
    EXPECT_EQ(WechatPaySignature::verify(headers, altered, certificates, at),
              SignatureVerdict::Mismatch);
    WechatPayHeaders otherNonce = headers;
    otherNonce.nonce = "another-nonce";
    EXPECT_EQ(WechatPaySignature::verify(otherNonce, body, certificates, at),
              SignatureVerdict::Mismatch);
    EXPECT_EQ(WechatPaySignature::verify(headers, body, certificates, at + 301),
              SignatureVerdict::OutsideWindow);
    EXPECT_EQ(WechatPaySignature::verify(headers, body, certificates, at - 301),
              SignatureVerdict::OutsideWindow);
    WechatPayHeaders unknown = headers;
    unknown.serial = "0123456789ABCDEF";
    EXPECT_EQ(WechatPaySignature::verify(unknown, body, certificates, at),
              SignatureVerdict::UnknownKey);
    WechatPayHeaders unreadable = headers;
    unreadable.timestamp = "soon";
    EXPECT_EQ(WechatPaySignature::verify(unreadable, body, certificates, at),
              SignatureVerdict::Malformed);
}

QJsonObject wechatResource()
{
    return QJsonDocument::fromJson(vector("wechatpay.body"))
        .object()
        .value(QStringLiteral("resource"))
        .toObject();
}

QByteArray field(const QJsonObject &object, const char *name)
{
    return object.value(QLatin1String(name)).toString().toUtf8();
}

TEST(AesGcmTest, TheGoldenResourceDecryptsWithTheApiV3Key)
{
    const QJsonObject resource = wechatResource();
    Result<QByteArray> plaintext =
        AesGcm::open(vector("wechatpay.apiv3"), field(resource, "nonce"),
                     field(resource, "associated_data"), field(resource, "ciphertext"));
    ASSERT_TRUE(plaintext.ok()) << qPrintable(plaintext.error().message);
    EXPECT_EQ(*plaintext, vector("wechatpay.plaintext"));
    Result<QByteArray> sealedByKeel =
        AesGcm::seal(vector("wechatpay.apiv3"), field(resource, "nonce"),
                     field(resource, "associated_data"), *plaintext);
    ASSERT_TRUE(sealedByKeel.ok());
    EXPECT_EQ(*sealedByKeel, field(resource, "ciphertext"));
}

TEST(AesGcmTest, AnAlteredByteTheWrongKeyOrOtherAssociatedDataFail)
{
    const QJsonObject resource = wechatResource();
    const QByteArray key = vector("wechatpay.apiv3");
    const QByteArray nonce = field(resource, "nonce");
    const QByteArray sealed = field(resource, "ciphertext");
    QByteArray raw = QByteArray::fromBase64(sealed);
    for (qsizetype at : {qsizetype(0), raw.size() / 2, raw.size() - 1}) {
        QByteArray altered = raw;
        altered[at] = char(altered[at] ^ 0x01);
        Result<QByteArray> opened = AesGcm::open(key, nonce, "transaction", altered.toBase64());
        ASSERT_FALSE(opened.ok());
        EXPECT_TRUE(opened.error().is("decrypt_failed"));
    }
    QByteArray otherKey = key;
    otherKey[0] = 'X';
    EXPECT_FALSE(AesGcm::open(otherKey, nonce, "transaction", sealed).ok());
    EXPECT_FALSE(AesGcm::open(key, nonce, "refund", sealed).ok());
    EXPECT_FALSE(AesGcm::open(key, "othernonce12", "transaction", sealed).ok());
    EXPECT_FALSE(AesGcm::open(key.left(16), nonce, "transaction", sealed).ok());
    EXPECT_FALSE(AesGcm::open(key, nonce, "transaction", "not base64 !").ok());
}

} // namespace

// Found by AlipaySignStringFuzz: a key repeated with an empty value first
// ("x=&x=1") used to be signed as "x=1", though parsers that keep the first
// value read it as empty. Any repeated key, and a second sign, is refused.
TEST(AlipaySignatureTest, AnyRepeatedKeyIsMalformedEvenIfOneCopyIsEmptyOrUnsigned)
{
    const AlipaySignature::Parameters golden = alipayParameters(vector("alipay.body"));
    AlipaySignature::Parameters emptyFirst{{QStringLiteral("extra"), QString()}};
    emptyFirst += golden;
    emptyFirst.append({QStringLiteral("extra"), QStringLiteral("1")});
    EXPECT_TRUE(AlipaySignature::signString(emptyFirst).isEmpty());
    EXPECT_EQ(AlipaySignature::verify(emptyFirst, key("alipay.pub")), SignatureVerdict::Malformed);
    AlipaySignature::Parameters twoSigns = golden;
    twoSigns.append({QStringLiteral("sign"), QStringLiteral("AAAA")});
    EXPECT_EQ(AlipaySignature::verify(twoSigns, key("alipay.pub")), SignatureVerdict::Malformed);
}
