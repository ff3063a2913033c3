#include "core/signing/WechatPayCertificates.h"

#include "core/ServiceLog.h"
#include "core/signing/AesGcm.h"
#include "core/signing/WechatPaySignature.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace keel {
namespace {

constexpr qint64 RefreshIntervalSeconds = 60;

Error refused(const QString &why)
{
    return makeError(ErrorKind::Failed,
                     QStringLiteral("WeChat Pay's certificate list: %1").arg(why));
}

// One listed certificate, decrypted and checked against its listing.
Result<RsaKey> listed(const QJsonObject &entry, const QByteArray &apiV3Key, qint64 now)
{
    const QJsonObject sealed = entry.value(QStringLiteral("encrypt_certificate")).toObject();
    const QString serial = entry.value(QStringLiteral("serial_no")).toString().toUpper();
    if (sealed.value(QStringLiteral("algorithm")).toString() != QLatin1String("AEAD_AES_256_GCM"))
        return refused(QStringLiteral("%1 is not sealed with AEAD_AES_256_GCM").arg(serial));
    Result<QByteArray> pem =
        AesGcm::open(apiV3Key, sealed.value(QStringLiteral("nonce")).toString().toUtf8(),
                     sealed.value(QStringLiteral("associated_data")).toString().toUtf8(),
                     sealed.value(QStringLiteral("ciphertext")).toString().toUtf8());
    if (!pem)
        return refused(QStringLiteral("%1 does not decrypt with the APIv3 key").arg(serial));
    Result<RsaKey> certificate =
        RsaKey::fromPem(*pem, QStringLiteral("WeChat Pay certificate %1").arg(serial));
    if (!certificate || certificate->canSign() || certificate->certificateSerial() != serial)
        return refused(QStringLiteral("%1 is not a certificate with that serial").arg(serial));
    const QDateTime expires =
        QDateTime::fromString(entry.value(QStringLiteral("expire_time")).toString(), Qt::ISODate);
    if (!expires.isValid() || expires.toSecsSinceEpoch() <= now)
        return refused(QStringLiteral("%1 has expired").arg(serial));
    return certificate;
}

// An expired certificate's key may have been retired, or leaked.
QList<RsaKey> unexpired(const QList<RsaKey> &certificates, qint64 now)
{
    QList<RsaKey> valid;
    for (const RsaKey &certificate : certificates)
        if (certificate.certificateExpiry() == 0 || certificate.certificateExpiry() > now)
            valid << certificate;
    return valid;
}

} // namespace

WechatPayCertificates::WechatPayCertificates(QList<RsaKey> configured, QByteArray apiV3Key)
    : m_certificates(std::move(configured)), m_apiV3Key(std::move(apiV3Key))
{}

QList<RsaKey> WechatPayCertificates::current() const
{
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    QMutexLocker lock(&m_mutex);
    return unexpired(m_certificates, now);
}

bool WechatPayCertificates::refreshDue(qint64 now)
{
    QMutexLocker lock(&m_mutex);
    if (m_apiV3Key.isEmpty() || now - m_lastRefresh < RefreshIntervalSeconds)
        return false;
    m_lastRefresh = now;
    return true;
}

Result<int> WechatPayCertificates::adopt(const WechatPayHeaders &signedBy, const QByteArray &body,
                                         qint64 now)
{
    const QJsonArray entries =
        QJsonDocument::fromJson(body).object().value(QStringLiteral("data")).toArray();
    QList<RsaKey> downloaded;
    for (const QJsonValue &entry : entries) {
        // One entry keel cannot take (expired, not sealed with its key) does
        // not stop it taking the others.
        Result<RsaKey> certificate = listed(entry.toObject(), m_apiV3Key, now);
        if (certificate)
            downloaded << *certificate;
        else
            ServiceLog::warning(certificate.error().message);
    }
    QMutexLocker lock(&m_mutex);
    QList<RsaKey> merged = m_certificates;
    int added = 0;
    for (const RsaKey &certificate : std::as_const(downloaded)) {
        const bool held = std::any_of(merged.cbegin(), merged.cend(), [&](const RsaKey &known) {
            return known.certificateSerial() == certificate.certificateSerial();
        });
        if (!held) {
            merged << certificate;
            ++added;
        }
    }
    if (const SignatureVerdict verdict =
            WechatPaySignature::verify(signedBy, body, unexpired(merged, now), now);
        verdict != SignatureVerdict::Valid)
        return refused(verdictMessage(verdict));
    m_certificates = merged;
    return added;
}

} // namespace keel
