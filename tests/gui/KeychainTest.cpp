// The connection dialog with a real Secret Service (gnome-keyring in a private
// D-Bus session: ctest runs this binary through tests/support/with-keyring).
#include "ConnectDialogTest.h"

#include "ui/ConnectDialog.h"
#include "ui/ConsoleSettings.h"
#include "ui/MessageBanner.h"
#include "ui/PasswordVault.h"

#include <QCheckBox>
#include <QDateTime>
#include <QFile>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace keel;
using keel::test::DatabaseTest;
using keel::test::TestCluster;

namespace {

class KeychainTest : public keel::test::ConnectDialogTest {
protected:
    void SetUp() override
    {
        ASSERT_FALSE(qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS"))
            << "run through tests/support/with-keyring";
        ConnectDialogTest::SetUp();
        ASSERT_TRUE(m_config.isValid());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_config.path());
        qunsetenv("PGPASSWORD");
    }

    // What the keychain holds for a profile, read the way the console reads it.
    std::pair<PasswordVault::Lookup, QString> stored(const QString &profile)
    {
        PasswordVault vault;
        std::pair<PasswordVault::Lookup, QString> found{PasswordVault::Lookup::Unavailable, {}};
        bool done = false;
        vault.read(profile,
                   [&](PasswordVault::Lookup lookup, const QString &password, const QString &) {
                       found = {lookup, password};
                       done = true;
                   });
        EXPECT_TRUE(QTest::qWaitFor([&] { return done; }, 10000));
        return found;
    }

    QTemporaryDir m_config;
};

} // namespace

TEST_F(KeychainTest, ARememberedPasswordConnectsNextTimeAndLeavesWithItsProfile)
{
    const QString password = QStringLiteral("kept in the keyring");
    const QString user = createPasswordLogin(password);
    ConsoleSettings consoleSettings;
    {
        PasswordVault vault;
        ConnectDialog dialog(&consoleSettings, &vault);
        dialog.show();
        fillHostFields(dialog, QStringLiteral("keyring"), user);
        qobject_cast<QLineEdit *>(dialog.field(QStringLiteral("password")))->setText(password);
        EXPECT_TRUE(
            qobject_cast<QCheckBox *>(dialog.field(QStringLiteral("remember")))->isChecked());
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        dialog.connectToServer();
        ASSERT_TRUE(accepted.wait(15000)) << qPrintable(dialog.banner()->text());
        EXPECT_TRUE(vault.available());
    }
    const auto [lookup, kept] = stored(QStringLiteral("keyring"));
    ASSERT_EQ(lookup, PasswordVault::Lookup::Found);
    EXPECT_EQ(kept, password);

    // Next start: nothing typed, the keychain answers.
    {
        PasswordVault vault;
        ConnectDialog dialog(&consoleSettings, &vault);
        dialog.show();
        EXPECT_EQ(dialog.profileName(), QStringLiteral("keyring"));
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        dialog.connectToServer();
        ASSERT_TRUE(accepted.wait(15000)) << qPrintable(dialog.banner()->text());
        EXPECT_EQ(dialog.primary().value(QStringLiteral("password")), password);
    }
    // Renamed, the profile keeps its password.
    {
        PasswordVault vault;
        ConnectDialog dialog(&consoleSettings, &vault);
        dialog.show();
        qobject_cast<QLineEdit *>(dialog.field(QStringLiteral("name")))
            ->setText(QStringLiteral("keyring renamed"));
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        dialog.connectToServer();
        ASSERT_TRUE(accepted.wait(15000)) << qPrintable(dialog.banner()->text());
        EXPECT_EQ(dialog.primary().value(QStringLiteral("password")), password);
        EXPECT_TRUE(QTest::qWaitFor(
            [&] {
                return stored(QStringLiteral("keyring renamed")).first ==
                           PasswordVault::Lookup::Found &&
                       stored(QStringLiteral("keyring")).first == PasswordVault::Lookup::NotFound;
            },
            10000));

        // Deleting the profile deletes its password too.
        dialog.deleteProfile();
    }
    EXPECT_TRUE(QTest::qWaitFor(
        [&] {
            return stored(QStringLiteral("keyring renamed")).first ==
                   PasswordVault::Lookup::NotFound;
        },
        10000));
    QFile file(QSettings(QStringLiteral("keel"), QStringLiteral("keel-console")).fileName());
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EXPECT_FALSE(file.readAll().contains("kept in the keyring"));
}

TEST_F(KeychainTest, AnUncheckedBoxStoresNothing)
{
    const QString password = QStringLiteral("not to be kept");
    const QString user = createPasswordLogin(password);
    ConsoleSettings consoleSettings;
    PasswordVault vault;
    ConnectDialog dialog(&consoleSettings, &vault);
    dialog.show();
    fillHostFields(dialog, QStringLiteral("forgetful"), user);
    qobject_cast<QLineEdit *>(dialog.field(QStringLiteral("password")))->setText(password);
    qobject_cast<QCheckBox *>(dialog.field(QStringLiteral("remember")))->setChecked(false);
    QSignalSpy accepted(&dialog, &QDialog::accepted);
    dialog.connectToServer();
    ASSERT_TRUE(accepted.wait(15000)) << qPrintable(dialog.banner()->text());
    EXPECT_EQ(stored(QStringLiteral("forgetful")).first, PasswordVault::Lookup::NotFound);
}

TEST_F(KeychainTest, APasswordTheServerNoLongerTakesIsRecognisedAsTheKeychains)
{
    const QString user = createPasswordLogin(QStringLiteral("current"));
    ConsoleSettings consoleSettings;
    PasswordVault vault;
    ConnectDialog dialog(&consoleSettings, &vault);
    dialog.show();
    fillHostFields(dialog, QStringLiteral("stale"), user);
    bool written = false;
    vault.write(QStringLiteral("stale"), QStringLiteral("old"),
                [&](const Status &) { written = true; });
    ASSERT_TRUE(QTest::qWaitFor([&] { return written; }, 10000));
    QSignalSpy attempted(&dialog, &ConnectDialog::attempted);
    dialog.connectToServer();
    ASSERT_TRUE(attempted.wait(15000));
    EXPECT_EQ(attempted.last().at(0).value<ConnectionCheck::Outcome>(),
              ConnectionCheck::Outcome::PasswordRefused);
    EXPECT_TRUE(dialog.banner()->text().contains(QLatin1String("keychain")))
        << qPrintable(dialog.banner()->text());
}
