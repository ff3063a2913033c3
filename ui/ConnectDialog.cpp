#include "ui/ConnectDialog.h"

#include "ui/ConsoleSettings.h"
#include "ui/MessageBanner.h"
#include "ui/PasswordVault.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

#include <memory>

namespace keel {
ConnectDialog::ConnectDialog(ConsoleSettings *settings, PasswordVault *vault, QWidget *parent)
    : QDialog(parent), m_settings(settings), m_vault(vault), m_banner(new MessageBanner(this)),
      m_profiles(new QListWidget(this)), m_name(new QLineEdit(this)), m_kind(new QComboBox(this)),
      m_host(new QLineEdit(this)), m_port(new QSpinBox(this)), m_database(new QLineEdit(this)),
      m_user(new QLineEdit(this)), m_service(new QLineEdit(this)), m_uri(new QLineEdit(this)),
      m_sslMode(new QComboBox(this)), m_sslRootCert(new QLineEdit(this)),
      m_replica(new QLineEdit(this)), m_password(new QLineEdit(this)),
      m_remember(new QCheckBox(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Connect to keel"));
    m_banner->hide();
    QPushButton *add = nullptr;
    QPushButton *remove = nullptr;
    QLayout *left = buildProfileList(add, remove);
    m_form = buildForm();
    auto *connectButton = m_buttons->addButton(tr("&Connect"), QDialogButtonBox::AcceptRole);
    connectButton->setDefault(true);
    auto *right = new QVBoxLayout;
    right->addLayout(m_form);
    right->addStretch(1);
    auto *body = new QHBoxLayout;
    body->addLayout(left);
    body->addLayout(right, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_banner);
    layout->addLayout(body, 1);
    layout->addWidget(m_buttons);

    connect(m_kind, &QComboBox::currentIndexChanged, this, &ConnectDialog::showKindRows);
    showKindRows();
    connect(add, &QPushButton::clicked, this, &ConnectDialog::newProfile);
    connect(remove, &QPushButton::clicked, this, &ConnectDialog::deleteProfile);
    connect(m_profiles, &QListWidget::currentTextChanged, this, [this](const QString &name) {
        for (const ConnectionProfile &profile : m_settings->profiles())
            if (profile.name == name)
                showProfile(profile);
    });
    connect(m_buttons, &QDialogButtonBox::accepted, this, &ConnectDialog::connectToServer);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_vault, &PasswordVault::availabilityChanged, this,
            &ConnectDialog::handleKeychainAvailability);

    reloadProfiles(m_settings->lastProfile());
    if (m_profiles->count() == 0)
        newProfile();
    resize(720, 420);
}

QLayout *ConnectDialog::buildProfileList(QPushButton *&add, QPushButton *&remove)
{
    m_profiles->setAccessibleName(tr("Saved connections"));
    m_profiles->setMaximumWidth(200);
    add = new QPushButton(tr("&New"), this);
    remove = new QPushButton(tr("&Delete"), this);
    auto *profileButtons = new QHBoxLayout;
    profileButtons->addWidget(add);
    profileButtons->addWidget(remove);
    auto *left = new QVBoxLayout;
    left->addWidget(m_profiles, 1);
    left->addLayout(profileButtons);
    return left;
}

QFormLayout *ConnectDialog::buildForm()
{
    m_kind->addItem(tr("Host and port"), int(ConnectionProfile::Kind::Fields));
    m_kind->addItem(tr("Service name (pg_service.conf)"), int(ConnectionProfile::Kind::Service));
    m_kind->addItem(tr("Connection URI"), int(ConnectionProfile::Kind::Uri));
    m_host->setPlaceholderText(tr("the local socket"));
    m_port->setRange(0, 65535);
    m_port->setSpecialValueText(tr("default (5432)"));
    m_database->setPlaceholderText(tr("same as the user name"));
    m_user->setPlaceholderText(tr("your login name"));
    m_uri->setPlaceholderText(QStringLiteral("postgresql://alice@db.example/keel"));
    m_sslMode->addItem(tr("libpq's default (prefer)"), QString());
    for (const QString &mode : ConnectionProfile::sslModes())
        m_sslMode->addItem(mode, mode);
    auto *browse = new QPushButton(tr("&Browse…"), this);
    browse->setAccessibleName(tr("Choose the root certificate"));
    connect(browse, &QPushButton::clicked, this, &ConnectDialog::browseRootCertificate);
    auto *rootCert = new QHBoxLayout;
    rootCert->addWidget(m_sslRootCert, 1);
    rootCert->addWidget(browse);
    m_sslRootCert->setPlaceholderText(tr("~/.postgresql/root.crt"));
    m_replica->setPlaceholderText(tr("optional, e.g. host=replica.example"));
    m_password->setEchoMode(QLineEdit::Password);
    m_password->setPlaceholderText(tr("from the keychain, .pgpass or PGPASSWORD if empty"));
    m_remember->setText(tr("Remember in the system &keychain"));
    m_remember->setChecked(true);

    auto *form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("Connect &with:"), m_kind);
    form->addRow(tr("&Host:"), m_host);
    form->addRow(tr("&Port:"), m_port);
    form->addRow(tr("&Database:"), m_database);
    form->addRow(tr("&User:"), m_user);
    form->addRow(tr("&Service:"), m_service);
    form->addRow(tr("U&RI:"), m_uri);
    form->addRow(tr("&TLS:"), m_sslMode);
    auto *rootCertLabel = new QLabel(tr("Root &certificate:"), this);
    rootCertLabel->setBuddy(m_sslRootCert);
    form->addRow(rootCertLabel, rootCert);
    form->addRow(tr("Read &replica:"), m_replica);
    form->addRow(tr("Pass&word:"), m_password);
    form->addRow(QString(), m_remember);
    return form;
}

void ConnectDialog::showKindRows()
{
    // Only the rows of the chosen way of connecting are shown.
    const auto kind = ConnectionProfile::Kind(m_kind->currentData().toInt());
    for (QWidget *row : {static_cast<QWidget *>(m_host), static_cast<QWidget *>(m_port),
                         static_cast<QWidget *>(m_database), static_cast<QWidget *>(m_user)})
        m_form->setRowVisible(row, kind == ConnectionProfile::Kind::Fields);
    m_form->setRowVisible(m_service, kind == ConnectionProfile::Kind::Service);
    m_form->setRowVisible(m_uri, kind == ConnectionProfile::Kind::Uri);
}

void ConnectDialog::browseRootCertificate()
{
    const QString file = QFileDialog::getOpenFileName(
        this, tr("Root certificate"), QString(), tr("Certificates (*.crt *.pem);;All files (*)"));
    if (!file.isEmpty())
        m_sslRootCert->setText(file);
}

void ConnectDialog::handleKeychainAvailability(bool available)
{
    m_remember->setEnabled(available);
    if (!available)
        m_remember->setChecked(false);
    m_remember->setToolTip(available ? QString()
                                     : tr("No keychain is available, so the password is "
                                          "asked for each time and never stored."));
}

QString ConnectDialog::profileName() const
{
    return m_editing;
}

QWidget *ConnectDialog::field(const QString &name) const
{
    const std::pair<const char *, QWidget *> fields[] = {
        {"name", m_name},         {"kind", m_kind},
        {"host", m_host},         {"port", m_port},
        {"database", m_database}, {"user", m_user},
        {"service", m_service},   {"uri", m_uri},
        {"sslmode", m_sslMode},   {"sslrootcert", m_sslRootCert},
        {"replica", m_replica},   {"password", m_password},
        {"remember", m_remember}};
    for (const auto &[key, widget] : fields)
        if (name == QLatin1String(key))
            return widget;
    return nullptr;
}

void ConnectDialog::selectProfile(const QString &name)
{
    const QList<QListWidgetItem *> found = m_profiles->findItems(name, Qt::MatchExactly);
    if (!found.isEmpty())
        m_profiles->setCurrentItem(found.first());
}

void ConnectDialog::reloadProfiles(const QString &select)
{
    m_profiles->clear();
    for (const ConnectionProfile &profile : m_settings->profiles())
        m_profiles->addItem(profile.name);
    selectProfile(select);
    if (!m_profiles->currentItem() && m_profiles->count() > 0)
        m_profiles->setCurrentRow(0);
}

void ConnectDialog::showProfile(const ConnectionProfile &profile)
{
    m_editing = profile.name;
    m_name->setText(profile.name);
    m_kind->setCurrentIndex(m_kind->findData(int(profile.kind)));
    m_host->setText(profile.host);
    m_port->setValue(profile.port);
    m_database->setText(profile.database);
    m_user->setText(profile.user);
    m_service->setText(profile.service);
    m_uri->setText(profile.uri);
    m_sslMode->setCurrentIndex(std::max(0, m_sslMode->findData(profile.sslMode)));
    m_sslRootCert->setText(profile.sslRootCert);
    m_replica->setText(profile.replicaDsn);
    m_password->clear();
    m_banner->hide();
}

ConnectionProfile ConnectDialog::profileFromFields() const
{
    ConnectionProfile profile;
    profile.name = m_name->text().trimmed();
    profile.kind = ConnectionProfile::Kind(m_kind->currentData().toInt());
    profile.host = m_host->text().trimmed();
    profile.port = m_port->value();
    profile.database = m_database->text().trimmed();
    profile.user = m_user->text().trimmed();
    profile.service = m_service->text().trimmed();
    profile.uri = m_uri->text().trimmed();
    profile.sslMode = m_sslMode->currentData().toString();
    profile.sslRootCert = m_sslRootCert->text().trimmed();
    profile.replicaDsn = m_replica->text().trimmed();
    return profile;
}

void ConnectDialog::newProfile()
{
    ConnectionProfile profile;
    profile.name = tr("New connection");
    for (int n = 2; !m_profiles->findItems(profile.name, Qt::MatchExactly).isEmpty(); ++n)
        profile.name = tr("New connection %1").arg(n);
    m_profiles->clearSelection();
    showProfile(profile);
    m_editing.clear(); // not saved yet
    m_name->setFocus();
    m_name->selectAll();
}

void ConnectDialog::deleteProfile()
{
    if (m_editing.isEmpty())
        return;
    m_vault->remove(m_editing);
    m_settings->removeProfile(m_editing);
    reloadProfiles({});
    if (m_profiles->count() == 0)
        newProfile();
}

void ConnectDialog::showFieldError(const Error &error)
{
    m_banner->showMessage(error.message, MessageBanner::Kind::Error);
    if (QWidget *widget = field(error.field)) {
        if (widget == m_host || widget == m_port || widget == m_database || widget == m_user)
            m_kind->setCurrentIndex(m_kind->findData(int(ConnectionProfile::Kind::Fields)));
        widget->setFocus();
    }
}

void ConnectDialog::connectToServer()
{
    const ConnectionProfile profile = profileFromFields();
    // Read before the profile list reloads, which shows the profile afresh.
    const QString typed = m_password->text();
    Result<ConnectionSettings> primarySettings = profile.primary();
    if (!primarySettings) {
        showFieldError(primarySettings.error());
        return;
    }
    Result<std::optional<ConnectionSettings>> replicaSettings = profile.replica();
    if (!replicaSettings) {
        showFieldError(replicaSettings.error());
        return;
    }
    // The profile is kept even if this attempt fails: it is what was typed.
    const QString previous = m_editing;
    m_settings->saveProfile(profile, previous);
    m_settings->setLastProfile(profile.name);
    if (previous != profile.name) {
        if (!previous.isEmpty())
            movePassword(previous, profile.name);
        reloadProfiles(profile.name);
    }
    m_editing = profile.name;

    if (!typed.isEmpty()) {
        attempt(*primarySettings, *replicaSettings, typed, false);
        return;
    }
    setBusy(true);
    // Just renamed: the password is still filed under the old name while it moves.
    const QString filedUnder = previous.isEmpty() ? profile.name : previous;
    m_vault->read(
        filedUnder, [this, primary = *primarySettings, replica = *replicaSettings](
                        PasswordVault::Lookup lookup, const QString &password, const QString &) {
            // Nothing stored: libpq still tries .pgpass and PGPASSWORD.
            attempt(primary, replica, lookup == PasswordVault::Lookup::Found ? password : QString(),
                    lookup == PasswordVault::Lookup::Found);
        });
}

void ConnectDialog::movePassword(const QString &from, const QString &to)
{
    // The vault outlives the dialog (main owns it), so the move completes.
    PasswordVault *vault = m_vault;
    vault->read(from, [vault, from, to](PasswordVault::Lookup lookup, const QString &password,
                                        const QString &) {
        if (lookup != PasswordVault::Lookup::Found)
            return;
        vault->write(to, password, [vault, from](const Status &written) {
            if (written)
                vault->remove(from);
        });
    });
}

void ConnectDialog::setBusy(bool busy)
{
    m_buttons->setEnabled(!busy);
    setCursor(busy ? Qt::BusyCursor : Qt::ArrowCursor);
}

void ConnectDialog::attempt(ConnectionSettings primary, std::optional<ConnectionSettings> replica,
                            const QString &password, bool fromKeychain)
{
    if (!password.isEmpty()) {
        primary.set(QStringLiteral("password"), password);
        if (replica && !replica->has(QStringLiteral("password")))
            replica->set(QStringLiteral("password"), password);
    }
    m_primary = primary;
    m_replicaSettings = replica;
    setBusy(true);
    m_banner->showMessage(tr("Connecting to %1…").arg(primary.redacted()),
                          MessageBanner::Kind::Information);
    // libpq connects synchronously; the dialog stays responsive meanwhile.
    auto check = std::make_shared<ConnectionCheck>();
    QThread *thread = QThread::create([check, primary, replica] {
        *check = ConnectionCheck::run(primary);
        if (check->outcome == ConnectionCheck::Outcome::Connected && replica) {
            const bool usedPassword = check->usedPassword;
            *check = ConnectionCheck::run(*replica);
            if (check->outcome != ConnectionCheck::Outcome::Connected)
                check->message = QObject::tr("the read replica: %1").arg(check->message);
            check->usedPassword = check->usedPassword || usedPassword;
        }
    });
    connect(thread, &QThread::finished, this,
            [this, check, password, fromKeychain] { handleCheck(*check, password, fromKeychain); });
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    thread->start();
}

void ConnectDialog::handleCheck(const ConnectionCheck &check, const QString &password,
                                bool fromKeychain)
{
    setBusy(false);
    Q_EMIT attempted(check.outcome, check.message);
    switch (check.outcome) {
    case ConnectionCheck::Outcome::Connected:
        m_banner->hide();
        if (!fromKeychain && !password.isEmpty() && check.usedPassword && m_remember->isChecked() &&
            m_remember->isEnabled()) {
            // Accepting waits for the keychain, so the password is not lost on a quick exit.
            setBusy(true);
            m_vault->write(m_editing, password, [this](const Status &stored) {
                setBusy(false);
                if (!stored)
                    qWarning("keel-console: %s", qPrintable(stored.error().message));
                accept();
            });
            return;
        }
        accept();
        return;
    case ConnectionCheck::Outcome::NeedsPassword:
        m_password->clear();
        m_password->setFocus();
        m_banner->showMessage(tr("The server asks for a password, and none was found in the "
                                 "keychain, .pgpass or PGPASSWORD. Enter it below."),
                              MessageBanner::Kind::Warning);
        return;
    case ConnectionCheck::Outcome::PasswordRefused:
        m_password->clear();
        m_password->setFocus();
        m_banner->showMessage(
            fromKeychain
                ? tr("The server refused the password kept in the keychain; enter it again.")
                : tr("The server refused the password: %1").arg(check.message),
            MessageBanner::Kind::Warning);
        return;
    case ConnectionCheck::Outcome::Failed:
        m_banner->showMessage(tr("Could not connect: %1").arg(check.message),
                              MessageBanner::Kind::Error);
        return;
    }
}

} // namespace keel
