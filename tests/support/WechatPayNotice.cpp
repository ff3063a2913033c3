#include "WechatPayNotice.h"

#include "core/signing/AesGcm.h"
#include "core/signing/RsaKey.h"
#include "core/signing/WechatPaySignature.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <gtest/gtest.h>

namespace keel::test {

QByteArray wechatPayNoticeBody(const QString &eventId, const QString &chargeId, qint64 total,
                               const QByteArray &apiV3Key, const QString &state)
{
    const QJsonObject transaction{
        {QStringLiteral("out_trade_no"), chargeId},
        {QStringLiteral("transaction_id"), QStringLiteral("4200002026120100001")},
        {QStringLiteral("trade_state"), state},
        {QStringLiteral("amount"),
         QJsonObject{{QStringLiteral("total"), total},
                     {QStringLiteral("currency"), QStringLiteral("CNY")}}}};
    const QByteArray nonce = "r4nd0mN0nce1";
    Result<QByteArray> sealed = AesGcm::seal(
        apiV3Key, nonce, "transaction", QJsonDocument(transaction).toJson(QJsonDocument::Compact));
    EXPECT_TRUE(sealed.ok());
    const QJsonObject event{
        {QStringLiteral("id"), eventId},
        {QStringLiteral("event_type"), QStringLiteral("TRANSACTION.SUCCESS")},
        {QStringLiteral("resource_type"), QStringLiteral("encrypt-resource")},
        {QStringLiteral("resource"),
         QJsonObject{{QStringLiteral("algorithm"), QStringLiteral("AEAD_AES_256_GCM")},
                     {QStringLiteral("ciphertext"), QString::fromLatin1(sealed.value())},
                     {QStringLiteral("associated_data"), QStringLiteral("transaction")},
                     {QStringLiteral("nonce"), QString::fromLatin1(nonce)}}}};
    return QJsonDocument(event).toJson(QJsonDocument::Compact);
}

HttpClient::Headers wechatPayNoticeHeaders(const QByteArray &body, const QByteArray &nonce,
                                           qint64 at, const QByteArray &serial,
                                           const RsaKey &platformKey)
{
    Result<WechatPayHeaders> headers =
        WechatPaySignature::sign(body, platformKey, serial, at, nonce);
    EXPECT_TRUE(headers.ok());
    if (!headers)
        return {};
    return {{"Wechatpay-Timestamp", headers->timestamp},
            {"Wechatpay-Nonce", headers->nonce},
            {"Wechatpay-Serial", headers->serial},
            {"Wechatpay-Signature", headers->signature},
            {"Content-Type", "application/json"}};
}

} // namespace keel::test
