#include "core/signing/StripeSignature.h"

#include <QMessageAuthenticationCode>

#include <openssl/crypto.h>

#include <cstdlib>

namespace keel::StripeSignature {
namespace {

QByteArray expected(const QByteArray &secret, const QByteArray &timestamp, const QByteArray &body)
{
    return QMessageAuthenticationCode::hash(timestamp + '.' + body, secret,
                                            QCryptographicHash::Sha256)
        .toHex();
}

bool sameDigest(const QByteArray &a, const QByteArray &b)
{
    return a.size() == b.size() &&
           CRYPTO_memcmp(a.constData(), b.constData(), size_t(a.size())) == 0;
}

} // namespace

QByteArray header(const QByteArray &secret, qint64 timestamp, const QByteArray &body)
{
    const QByteArray t = QByteArray::number(timestamp);
    return "t=" + t + ",v1=" + expected(secret, t, body);
}

QByteArray header(const QList<QByteArray> &secrets, qint64 timestamp, const QByteArray &body)
{
    const QByteArray t = QByteArray::number(timestamp);
    QByteArray value = "t=" + t;
    for (const QByteArray &secret : secrets)
        value += ",v1=" + expected(secret, t, body);
    return value;
}

SignatureVerdict verify(const QByteArray &header, const QByteArray &body,
                        const QList<QByteArray> &secrets, qint64 now, int toleranceSeconds)
{
    QByteArray timestamp;
    QList<QByteArray> signatures;
    for (const QByteArray &item : header.split(',')) {
        const qsizetype equals = item.indexOf('=');
        if (equals <= 0)
            return SignatureVerdict::Malformed;
        const QByteArray key = item.left(equals).trimmed();
        const QByteArray value = item.mid(equals + 1).trimmed();
        if (key == "t") {
            if (!timestamp.isEmpty())
                return SignatureVerdict::Malformed;
            timestamp = value;
        } else if (key == "v1") {
            signatures << value.toLower();
        } // other schemes (v0) are not signatures keel trusts
    }
    bool numeric = false;
    const qint64 signedAt = timestamp.toLongLong(&numeric);
    if (!numeric || signedAt < 0 || signatures.isEmpty())
        return SignatureVerdict::Malformed;
    if (std::llabs(now - signedAt) > toleranceSeconds)
        return SignatureVerdict::OutsideWindow;
    bool matched = false;
    for (const QByteArray &secret : secrets) {
        const QByteArray want = expected(secret, timestamp, body);
        for (const QByteArray &signature : signatures)
            matched |= sameDigest(want, signature); // no early exit: same time for every try
    }
    return matched ? SignatureVerdict::Valid : SignatureVerdict::Mismatch;
}

} // namespace keel::StripeSignature
