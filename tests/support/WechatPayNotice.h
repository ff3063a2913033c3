#pragma once

#include "core/net/HttpClient.h"

#include <QByteArray>
#include <QString>

namespace keel {
class RsaKey;
}

namespace keel::test {

// WeChat Pay's payment notification as it arrives: the transaction sealed
// with the merchant's APIv3 key inside a `resource` (AEAD_AES_256_GCM).
QByteArray wechatPayNoticeBody(const QString &eventId, const QString &chargeId, qint64 total,
                               const QByteArray &apiV3Key,
                               const QString &state = QStringLiteral("SUCCESS"));

// Its Wechatpay-* headers: the whole body signed with `platformKey` as
// `serial`, at `at` (seconds since 1970).
HttpClient::Headers wechatPayNoticeHeaders(const QByteArray &body, const QByteArray &nonce,
                                           qint64 at, const QByteArray &serial,
                                           const RsaKey &platformKey);

} // namespace keel::test
