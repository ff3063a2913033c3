#pragma once

#include "core/Result.h"

#include <QObject>

#include <functional>

namespace keel {

// Connection passwords in the OS keychain (Secret Service, KWallet, macOS
// Keychain, Windows Credential Store) through QtKeychain. There is no
// plain-text fallback: without a keychain the console asks each time.
class PasswordVault final : public QObject {
    Q_OBJECT

public:
    enum class Lookup { Found, NotFound, Unavailable };

    explicit PasswordVault(QObject *parent = nullptr);

    // The keychain's service name; entries are keyed by profile name.
    static QString serviceName() { return QStringLiteral("keel-console"); }

    void
    read(const QString &profile,
         std::function<void(Lookup lookup, const QString &password, const QString &problem)> done);
    void write(const QString &profile, const QString &password, std::function<void(Status)> done);
    void remove(const QString &profile, std::function<void(Status)> done = {});

    // False once the keychain has been found missing; true until then.
    bool available() const { return m_available; }

Q_SIGNALS:
    void availabilityChanged(bool available);

private:
    void noteAvailability(bool available);

    bool m_available = true;
};

} // namespace keel
