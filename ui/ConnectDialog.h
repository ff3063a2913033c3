#pragma once

#include "core/db/ConnectionCheck.h"
#include "core/db/ConnectionProfile.h"
#include "core/db/ConnectionSettings.h"

#include <QDialog>

#include <optional>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QLayout;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace keel {

class ConsoleSettings;
class MessageBanner;
class PasswordVault;

// Where the console connects: saved profiles (URI, service name, or host and
// port), TLS with verify-full and a root certificate, an optional read
// replica. Passwords come from the keychain, .pgpass or PGPASSWORD, or are
// typed here; they are never written to the profile.
class ConnectDialog final : public QDialog {
    Q_OBJECT

public:
    ConnectDialog(ConsoleSettings *settings, PasswordVault *vault, QWidget *parent = nullptr);

    // After accept(): what to connect to, with the password (in memory only).
    const ConnectionSettings &primary() const { return m_primary; }
    const std::optional<ConnectionSettings> &replica() const { return m_replicaSettings; }
    QString profileName() const;

    // The input widget for a profile field (name, kind, host, port, database,
    // user, service, uri, sslmode, sslrootcert, replica, password, remember).
    QWidget *field(const QString &name) const;
    MessageBanner *banner() const { return m_banner; }
    void selectProfile(const QString &name);

public Q_SLOTS:
    void connectToServer();
    void newProfile();
    void deleteProfile();

Q_SIGNALS:
    // After every attempt; tests wait on it.
    void attempted(keel::ConnectionCheck::Outcome outcome, const QString &message);

private:
    ConnectionProfile profileFromFields() const;
    QLayout *buildProfileList(QPushButton *&add, QPushButton *&remove);
    QFormLayout *buildForm();
    void showKindRows();
    void browseRootCertificate();
    void handleKeychainAvailability(bool available);
    void showProfile(const ConnectionProfile &profile);
    void reloadProfiles(const QString &select);
    void showFieldError(const Error &error);
    void attempt(ConnectionSettings primary, std::optional<ConnectionSettings> replica,
                 const QString &password, bool fromKeychain);
    void handleCheck(const ConnectionCheck &check, const QString &password, bool fromKeychain);
    void setBusy(bool busy);
    // A renamed profile keeps its password in the keychain.
    void movePassword(const QString &from, const QString &to);

    ConsoleSettings *m_settings;
    PasswordVault *m_vault;
    MessageBanner *m_banner;
    QListWidget *m_profiles;
    QLineEdit *m_name;
    QComboBox *m_kind;
    QLineEdit *m_host;
    QSpinBox *m_port;
    QLineEdit *m_database;
    QLineEdit *m_user;
    QLineEdit *m_service;
    QLineEdit *m_uri;
    QComboBox *m_sslMode;
    QLineEdit *m_sslRootCert;
    QLineEdit *m_replica;
    QLineEdit *m_password;
    QCheckBox *m_remember;
    QDialogButtonBox *m_buttons;
    QFormLayout *m_form = nullptr;
    QString m_editing; // the saved name of the profile on screen
    ConnectionSettings m_primary;
    std::optional<ConnectionSettings> m_replicaSettings;
};

} // namespace keel
