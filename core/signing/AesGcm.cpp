#include "core/signing/AesGcm.h"

#include <openssl/evp.h>

#include <memory>

namespace keel::AesGcm {
namespace {

constexpr int KeyBytes = 32;
constexpr int TagBytes = 16;

using Cipher = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

Error failure(const QString &why)
{
    return Error{ErrorKind::Failed, why, {}, QStringLiteral("decrypt_failed")};
}

const unsigned char *bytes(const QByteArray &data)
{
    return reinterpret_cast<const unsigned char *>(data.constData());
}

// Key, nonce length and associated data; `encrypt` picks the direction.
bool begin(EVP_CIPHER_CTX *context, const QByteArray &key, const QByteArray &nonce,
           const QByteArray &associatedData, bool encrypt)
{
    int unused = 0;
    return EVP_CipherInit_ex(context, EVP_aes_256_gcm(), nullptr, nullptr, nullptr, encrypt) == 1 &&
           EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, int(nonce.size()), nullptr) == 1 &&
           EVP_CipherInit_ex(context, nullptr, nullptr, bytes(key), bytes(nonce), encrypt) == 1 &&
           EVP_CipherUpdate(context, nullptr, &unused, bytes(associatedData),
                            int(associatedData.size())) == 1;
}

} // namespace

Result<QByteArray> open(const QByteArray &key, const QByteArray &nonce,
                        const QByteArray &associatedData, const QByteArray &base64Sealed)
{
    const auto sealed =
        QByteArray::fromBase64Encoding(base64Sealed, QByteArray::AbortOnBase64DecodingErrors);
    if (key.size() != KeyBytes)
        return failure(QStringLiteral("the APIv3 key must be 32 bytes"));
    if (!sealed || sealed.decoded.size() <= TagBytes || nonce.isEmpty())
        return failure(QStringLiteral("the resource's ciphertext or nonce is unreadable"));
    const QByteArray ciphertext = sealed.decoded.left(sealed.decoded.size() - TagBytes);
    QByteArray tag = sealed.decoded.right(TagBytes);
    Cipher context(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
    QByteArray plaintext(ciphertext.size() + TagBytes, Qt::Uninitialized);
    int written = 0;
    int last = 0;
    if (!begin(context.get(), key, nonce, associatedData, false) ||
        EVP_DecryptUpdate(context.get(), reinterpret_cast<unsigned char *>(plaintext.data()),
                          &written, bytes(ciphertext), int(ciphertext.size())) != 1 ||
        EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_SET_TAG, TagBytes, tag.data()) != 1 ||
        EVP_DecryptFinal_ex(context.get(),
                            reinterpret_cast<unsigned char *>(plaintext.data()) + written,
                            &last) != 1)
        return failure(QStringLiteral("the resource does not decrypt with the APIv3 key: "
                                      "altered, or the wrong key"));
    plaintext.truncate(written + last);
    return plaintext;
}

Result<QByteArray> seal(const QByteArray &key, const QByteArray &nonce,
                        const QByteArray &associatedData, const QByteArray &plaintext)
{
    if (key.size() != KeyBytes)
        return failure(QStringLiteral("the APIv3 key must be 32 bytes"));
    Cipher context(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
    QByteArray sealed(plaintext.size() + 2 * TagBytes, Qt::Uninitialized);
    auto *out = reinterpret_cast<unsigned char *>(sealed.data());
    int written = 0;
    int last = 0;
    if (!begin(context.get(), key, nonce, associatedData, true) ||
        EVP_EncryptUpdate(context.get(), out, &written, bytes(plaintext), int(plaintext.size())) !=
            1 ||
        EVP_EncryptFinal_ex(context.get(), out + written, &last) != 1 ||
        EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_GET_TAG, TagBytes, out + written + last) !=
            1)
        return failure(QStringLiteral("AES-256-GCM encryption failed"));
    sealed.truncate(written + last + TagBytes);
    return sealed.toBase64();
}

} // namespace keel::AesGcm
