#include "core/signing/RsaKey.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <ctime>

namespace keel {

struct RsaKey::Handle {
    explicit Handle(EVP_PKEY *owned) : key(owned) {}
    ~Handle() { EVP_PKEY_free(key); }
    Handle(const Handle &) = delete;
    Handle &operator=(const Handle &) = delete;
    EVP_PKEY *key;
};

namespace {

using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;

Bio memoryBio(const QByteArray &bytes)
{
    return Bio(BIO_new_mem_buf(bytes.constData(), int(bytes.size())), &BIO_free);
}

// When a certificate stops being valid, in seconds since 1970; 0 if unreadable.
qint64 expiryOf(X509 *certificate)
{
    std::tm when{};
    if (ASN1_TIME_to_tm(X509_get0_notAfter(certificate), &when) != 1)
        return 0;
    return qint64(timegm(&when));
}

QString serialOf(X509 *certificate)
{
    BIGNUM *number = ASN1_INTEGER_to_BN(X509_get0_serialNumber(certificate), nullptr);
    if (!number)
        return {};
    char *hex = BN_bn2hex(number);
    const QString serial = QString::fromLatin1(hex).toUpper();
    OPENSSL_free(hex);
    BN_free(number);
    return serial;
}

} // namespace

Result<RsaKey> RsaKey::generate(int bits)
{
    EVP_PKEY *key = EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", size_t(bits));
    if (!key)
        return makeError(ErrorKind::Failed, QStringLiteral("could not generate an RSA key"));
    RsaKey result;
    result.m_key = std::make_shared<Handle>(key);
    result.m_private = true;
    return result;
}

Result<RsaKey> RsaKey::generateCertified(int bits)
{
    Result<RsaKey> result = generate(bits);
    if (!result)
        return result;
    std::unique_ptr<X509, decltype(&X509_free)> certificate(X509_new(), &X509_free);
    std::unique_ptr<BIGNUM, decltype(&BN_free)> serial(BN_new(), &BN_free);
    const bool made = certificate && serial &&
                      BN_rand(serial.get(), 159, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ANY) &&
                      BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(certificate.get())) &&
                      X509_gmtime_adj(X509_getm_notBefore(certificate.get()), 0) &&
                      X509_gmtime_adj(X509_getm_notAfter(certificate.get()), 86400L * 365) &&
                      X509_set_pubkey(certificate.get(), result->m_key->key) &&
                      X509_sign(certificate.get(), result->m_key->key, EVP_sha256()) > 0;
    if (!made)
        return makeError(ErrorKind::Failed, QStringLiteral("could not certify an RSA key"));
    result->m_serial = serialOf(certificate.get());
    result->m_expiry = expiryOf(certificate.get());
    return result;
}

RsaKey RsaKey::named(const QString &keyId) const
{
    RsaKey key = *this;
    key.m_serial = keyId;
    return key;
}

Result<RsaKey> RsaKey::fromPem(const QByteArray &pem, const QString &what)
{
    RsaKey result;
    EVP_PKEY *key = nullptr;
    if (pem.contains("PRIVATE KEY-----")) {
        key = PEM_read_bio_PrivateKey(memoryBio(pem).get(), nullptr, nullptr, nullptr);
        result.m_private = key != nullptr;
    } else if (pem.contains("BEGIN CERTIFICATE")) {
        X509 *certificate = PEM_read_bio_X509(memoryBio(pem).get(), nullptr, nullptr, nullptr);
        if (certificate) {
            key = X509_get_pubkey(certificate);
            result.m_serial = serialOf(certificate);
            result.m_expiry = expiryOf(certificate);
            X509_free(certificate);
        }
    } else if (pem.contains("PUBLIC KEY-----")) {
        key = PEM_read_bio_PUBKEY(memoryBio(pem).get(), nullptr, nullptr, nullptr);
    }
    if (!key)
        return fieldError(what, QStringLiteral("key_invalid"),
                          QStringLiteral("%1 is not a PEM RSA key or certificate").arg(what));
    if (EVP_PKEY_get_base_id(key) != EVP_PKEY_RSA) {
        EVP_PKEY_free(key);
        return fieldError(what, QStringLiteral("key_invalid"),
                          QStringLiteral("%1 is not an RSA key").arg(what));
    }
    result.m_key = std::make_shared<Handle>(key);
    return result;
}

Result<RsaKey> RsaKey::fromBase64PublicKey(const QByteArray &base64, const QString &what)
{
    QByteArray pem = "-----BEGIN PUBLIC KEY-----\n";
    const QByteArray body = base64.simplified().replace(' ', "");
    for (qsizetype at = 0; at < body.size(); at += 64)
        pem += body.mid(at, 64) + '\n';
    pem += "-----END PUBLIC KEY-----\n";
    return fromPem(pem, what);
}

Result<QByteArray> RsaKey::signSha256(const QByteArray &message) const
{
    if (!m_private)
        return Error{ErrorKind::Failed, QStringLiteral("a public key cannot sign"), {}, {}};
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                    &EVP_MD_CTX_free);
    size_t length = 0;
    if (EVP_DigestSignInit(context.get(), nullptr, EVP_sha256(), nullptr, m_key->key) != 1 ||
        EVP_DigestSign(context.get(), nullptr, &length,
                       reinterpret_cast<const unsigned char *>(message.constData()),
                       size_t(message.size())) != 1)
        return Error{ErrorKind::Failed, QStringLiteral("RSA signing failed"), {}, {}};
    QByteArray signature(qsizetype(length), Qt::Uninitialized);
    if (EVP_DigestSign(context.get(), reinterpret_cast<unsigned char *>(signature.data()), &length,
                       reinterpret_cast<const unsigned char *>(message.constData()),
                       size_t(message.size())) != 1)
        return Error{ErrorKind::Failed, QStringLiteral("RSA signing failed"), {}, {}};
    signature.truncate(qsizetype(length));
    return signature;
}

bool RsaKey::verifySha256(const QByteArray &message, const QByteArray &signature) const
{
    if (!m_key)
        return false;
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                    &EVP_MD_CTX_free);
    return EVP_DigestVerifyInit(context.get(), nullptr, EVP_sha256(), nullptr, m_key->key) == 1 &&
           EVP_DigestVerify(context.get(),
                            reinterpret_cast<const unsigned char *>(signature.constData()),
                            size_t(signature.size()),
                            reinterpret_cast<const unsigned char *>(message.constData()),
                            size_t(message.size())) == 1;
}

} // namespace keel
