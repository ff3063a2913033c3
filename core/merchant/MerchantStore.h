#pragma once

#include "core/Result.h"
#include "core/merchant/Merchant.h"

#include <QString>

#include <optional>

namespace keel {

class LibpqConnection;

struct IssuedMerchant {
    Merchant merchant;
    QString apiKey;        // shown once; only its SHA-256 is stored
    QString webhookSecret; // for signing notifications to the merchant
};

class MerchantStore final {
public:
    explicit MerchantStore(LibpqConnection &session) : m_session(session) {}

    Result<IssuedMerchant> create(const QString &name, const QString &notifyUrl);
    // A new webhook secret for the merchant, shown once; the old one stays
    // valid for `keepPreviousHours` (notifications carry a signature for
    // each) so the merchant can deploy the new one. An error coded
    // "merchant_not_found" if there is no such merchant.
    Result<QString> rotateSecret(qint64 merchantId, int keepPreviousHours = 24);
    // The merchant an API key belongs to; cached for a few seconds per process
    // (a suspended merchant is refused within that time).
    Result<std::optional<Merchant>> authenticate(const QString &apiKey);

private:
    LibpqConnection &m_session;
};

} // namespace keel
