#pragma once

#include "core/Result.h"

#include <QByteArray>

namespace keel {

// AEAD_AES_256_GCM as WeChat Pay API v3 uses it for a notification's
// `resource`: a 32-byte key (the merchant's APIv3 key), the nonce and
// associated data as given, and base64(ciphertext || 16-byte tag).
namespace AesGcm {

// The plaintext; an error (code "decrypt_failed") if the key is wrong or any
// byte of the ciphertext, tag, nonce or associated data was altered.
Result<QByteArray> open(const QByteArray &key, const QByteArray &nonce,
                        const QByteArray &associatedData, const QByteArray &base64Sealed);
// base64(ciphertext || tag); for the channel simulator.
Result<QByteArray> seal(const QByteArray &key, const QByteArray &nonce,
                        const QByteArray &associatedData, const QByteArray &plaintext);

} // namespace AesGcm
} // namespace keel
