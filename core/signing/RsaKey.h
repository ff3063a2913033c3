#pragma once

#include "core/Result.h"

#include <QByteArray>
#include <QString>

#include <memory>

namespace keel {

// An RSA key for SHA256withRSA (PKCS#1 v1.5), the scheme Alipay's RSA2 and
// WeChat Pay's API v3 both use: a private key to sign, or a public key (or an
// X.509 certificate's) to verify.
class RsaKey final {
public:
    // A PEM "PRIVATE KEY", "RSA PRIVATE KEY", "PUBLIC KEY" or "CERTIFICATE".
    // `what` names the key in the error ("--alipay-public-key").
    static Result<RsaKey> fromPem(const QByteArray &pem, const QString &what);
    // Alipay hands out its public key as bare base64 (the PEM body, one line).
    static Result<RsaKey> fromBase64PublicKey(const QByteArray &base64, const QString &what);
    // A fresh private key (for a simulator that signs as a channel would).
    static Result<RsaKey> generate(int bits = 2048);
    // The same, named by the serial number of a self-signed certificate made
    // for it, as WeChat Pay knows a merchant's or its platform's key.
    static Result<RsaKey> generateCertified(int bits = 2048);

    bool canSign() const { return m_private; }
    // A certificate's serial number, upper-case hex as WeChat Pay writes it;
    // empty for a bare key.
    QString certificateSerial() const { return m_serial; }
    // The same public key named as WeChat Pay names a platform public key it
    // hands out instead of certificates (PUB_KEY_ID_…): its answers carry the
    // name where they would carry a certificate's serial.
    RsaKey named(const QString &keyId) const;
    // When the certificate expires (seconds since 1970); 0 for a bare key.
    qint64 certificateExpiry() const { return m_expiry; }

    // The raw signature; an error only if this is not a private key.
    Result<QByteArray> signSha256(const QByteArray &message) const;
    bool verifySha256(const QByteArray &message, const QByteArray &signature) const;

private:
    struct Handle;
    std::shared_ptr<Handle> m_key;
    bool m_private = false;
    QString m_serial;
    qint64 m_expiry = 0;
};

} // namespace keel
