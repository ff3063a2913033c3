#pragma once

#include "core/Result.h"
#include "core/merchant/Merchant.h"

#include <QString>

#include <optional>

namespace keel {

class PgConnection;

struct IssuedMerchant {
    Merchant merchant;
    QString apiKey;        // shown once; only its SHA-256 is stored
    QString webhookSecret; // for signing notifications to the merchant
};

class MerchantStore final {
public:
    explicit MerchantStore(PgConnection &session) : m_session(session) {}

    Result<IssuedMerchant> create(const QString &name, const QString &notifyUrl);
    // The merchant an API key belongs to; cached for a few seconds per process
    // (a suspended merchant is refused within that time).
    Result<std::optional<Merchant>> authenticate(const QString &apiKey);

private:
    PgConnection &m_session;
};

} // namespace keel
