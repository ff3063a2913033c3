#include "core/idempotency/IdempotencyKey.h"

#include <QCryptographicHash>

namespace keel {

Result<IdempotencyKey> IdempotencyKey::parse(const QByteArray &header, bool present)
{
    // The error names the header, so every endpoint reports it the same way.
    const auto invalid = [present](const QString &why) {
        return fieldError(QStringLiteral("Idempotency-Key"),
                          present ? QStringLiteral("idempotency_key_invalid")
                                  : QStringLiteral("idempotency_key_missing"),
                          QStringLiteral("Idempotency-Key %1").arg(why));
    };
    if (!present)
        return invalid(QStringLiteral("header is required for this request; send a unique value "
                                      "(e.g. a UUID) and reuse it when retrying"));
    QByteArray value = header.trimmed();
    if (value.size() >= 2 && value.startsWith('"')) {
        // sf-string: "..." with \" and \\ as the only escapes.
        if (!value.endsWith('"'))
            return invalid(QStringLiteral("is a quoted string without its closing quote"));
        QByteArray unquoted;
        for (qsizetype i = 1; i < value.size() - 1; ++i) {
            char c = value.at(i);
            if (c == '\\') {
                if (i + 1 >= value.size() - 1 ||
                    (value.at(i + 1) != '"' && value.at(i + 1) != '\\'))
                    return invalid(QStringLiteral("has an invalid escape in its quoted form"));
                c = value.at(++i);
            } else if (c == '"') {
                return invalid(QStringLiteral("has an unescaped quote inside its quoted form"));
            }
            unquoted += c;
        }
        value = unquoted;
    }
    if (value.isEmpty())
        return invalid(QStringLiteral("must not be empty"));
    if (value.size() > MaxLength)
        return invalid(QStringLiteral("must be at most %1 characters; got %2")
                           .arg(MaxLength)
                           .arg(value.size()));
    for (const char c : std::as_const(value))
        if (c < 0x20 || c > 0x7e)
            return invalid(QStringLiteral("must be printable ASCII"));
    IdempotencyKey key;
    key.m_text = QString::fromLatin1(value);
    return key;
}

QByteArray IdempotencyKey::scopedHash(qint64 merchantId) const
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(QByteArray::number(merchantId));
    hash.addData(QByteArrayView("\x1f", 1));
    hash.addData(m_text.toLatin1());
    return hash.result();
}

} // namespace keel
