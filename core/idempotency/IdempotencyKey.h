#pragma once

#include "core/Result.h"

#include <QByteArray>
#include <QString>

namespace keel {

// The Idempotency-Key request header. Stripe clients send the key bare; the
// IETF draft writes it as a structured-field string ("..."). Both are accepted
// and mean the same key.
class IdempotencyKey final {
public:
    static constexpr int MaxLength = 255;

    // Parses the raw header value; an absent header is an error too (the
    // endpoints that call this require a key).
    static Result<IdempotencyKey> parse(const QByteArray &header, bool present);

    QString text() const { return m_text; }
    // SHA-256 over merchant and key: keys are scoped to the merchant that sent them.
    QByteArray scopedHash(qint64 merchantId) const;

private:
    QString m_text;
};

} // namespace keel
