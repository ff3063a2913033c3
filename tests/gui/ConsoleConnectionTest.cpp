// Connecting: the dialog, its saved profiles and password handling; what a
// connection's grants enable; live updates; reads from a replica.
#include "ConnectDialogTest.h"

#include "core/db/LibpqConnection.h"
#include "core/db/MigrationSource.h"
#include "core/db/Migrator.h"
#include "core/db/QtSqlConnections.h"
#include "ui/ConnectDialog.h"
#include "ui/ConsoleSession.h"
#include "ui/ConsoleSettings.h"
#include "ui/HistoryView.h"
#include "ui/LiveFeed.h"
#include "ui/MainWindow.h"
#include "ui/MessageBanner.h"
#include "ui/OverviewView.h"
#include "ui/PasswordVault.h"
#include "ui/QueryWorker.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <numeric>

using namespace keel;
using keel::test::DatabaseTest;
using keel::test::TestCluster;

namespace {

class ConsoleConnectionTest : public keel::test::ConnectDialogTest {
protected:
    void SetUp() override
    {
        ConnectDialogTest::SetUp();
        ASSERT_TRUE(m_home.isValid());
        // Settings, .pgpass and keychain are this test's own: no session bus
        // means no keychain, as on a server without a desktop.
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_home.path());
        m_saved = {qgetenv("HOME"), qgetenv("PGPASSWORD"), qgetenv("DBUS_SESSION_BUS_ADDRESS")};
        qputenv("HOME", m_home.path().toUtf8());
        qunsetenv("PGPASSWORD");
        qunsetenv("DBUS_SESSION_BUS_ADDRESS");
    }
    void TearDown() override
    {
        qputenv("HOME", m_saved[0]);
        if (!m_saved[1].isEmpty())
            qputenv("PGPASSWORD", m_saved[1]);
        if (!m_saved[2].isEmpty())
            qputenv("DBUS_SESSION_BUS_ADDRESS", m_saved[2]);
        ConnectDialogTest::TearDown();
    }

    void exec(const ConnectionSettings &where, const QByteArray &sql)
    {
        auto session = LibpqConnection::open(where);
        ASSERT_TRUE(session.ok());
        Status done = session->exec(sql);
        ASSERT_TRUE(done.ok()) << qPrintable(done.error().message);
    }

    QTemporaryDir m_home;
    QList<QByteArray> m_saved;
};

} // namespace

TEST_F(ConsoleConnectionTest, AsksForThePasswordWithoutAKeychainAndNeverStoresIt)
{
    const QString password = QStringLiteral("correct horse 42");
    const QString user = createPasswordLogin(password);
    ConsoleSettings consoleSettings;
    PasswordVault vault;
    ConnectDialog dialog(&consoleSettings, &vault);
    dialog.show();
    fillHostFields(dialog, QStringLiteral("staging"), user);
    QSignalSpy attempted(&dialog, &ConnectDialog::attempted);
    QSignalSpy accepted(&dialog, &QDialog::accepted);

    dialog.connectToServer();
    ASSERT_TRUE(attempted.wait(15000));
    EXPECT_EQ(attempted.last().at(0).value<ConnectionCheck::Outcome>(),
              ConnectionCheck::Outcome::NeedsPassword);
    EXPECT_TRUE(dialog.banner()->text().contains(QLatin1String("password")))
        << qPrintable(dialog.banner()->text());
    EXPECT_FALSE(vault.available()) << qPrintable(dialog.banner()->text());
    auto *remember = qobject_cast<QCheckBox *>(dialog.field(QStringLiteral("remember")));
    EXPECT_FALSE(remember->isEnabled()); // nowhere safe to keep it
    EXPECT_EQ(accepted.size(), 0);

    QTest::keyClicks(qobject_cast<QLineEdit *>(dialog.field(QStringLiteral("password"))), password);
    QPushButton *connectButton = nullptr;
    for (QPushButton *button : dialog.findChildren<QPushButton *>())
        if (button->text() == dialog.tr("&Connect"))
            connectButton = button;
    ASSERT_NE(connectButton, nullptr);
    QTest::mouseClick(connectButton, Qt::LeftButton);
    ASSERT_TRUE(accepted.wait(15000)) << qPrintable(dialog.banner()->text());
    EXPECT_EQ(dialog.primary().value(QStringLiteral("user")), user);
    EXPECT_EQ(dialog.primary().value(QStringLiteral("password")), password);

    // The profile was saved; the password is nowhere in the settings file.
    const QList<ConnectionProfile> profiles = consoleSettings.profiles();
    ASSERT_EQ(profiles.size(), 1);
    EXPECT_EQ(profiles.first().user, user);
    EXPECT_EQ(consoleSettings.lastProfile(), QStringLiteral("staging"));
    QSettings raw(QStringLiteral("keel"), QStringLiteral("keel-console"));
    raw.sync();
    QFile file(raw.fileName());
    ASSERT_TRUE(file.open(QIODevice::ReadOnly)) << qPrintable(raw.fileName());
    const QByteArray stored = file.readAll();
    EXPECT_TRUE(stored.contains(user.toUtf8()));
    EXPECT_FALSE(stored.contains("correct horse"));
}

TEST_F(ConsoleConnectionTest, PgpassIsUsedWhenNothingIsTyped)
{
    const QString password = QStringLiteral("from-pgpass");
    const QString user = createPasswordLogin(password);
    QFile pgpass(m_home.filePath(QStringLiteral(".pgpass")));
    ASSERT_TRUE(pgpass.open(QIODevice::WriteOnly));
    pgpass.write("127.0.0.1:*:*:" + user.toUtf8() + ":" + password.toUtf8() + "\n");
    pgpass.close();
    pgpass.setPermissions(QFile::ReadOwner | QFile::WriteOwner);

    ConsoleSettings consoleSettings;
    PasswordVault vault;
    ConnectDialog dialog(&consoleSettings, &vault);
    fillHostFields(dialog, QStringLiteral("pgpass"), user);
    QSignalSpy accepted(&dialog, &QDialog::accepted);
    dialog.connectToServer();
    ASSERT_TRUE(accepted.wait(15000)) << qPrintable(dialog.banner()->text());
    EXPECT_FALSE(dialog.primary().has(QStringLiteral("password")));
}

TEST_F(ConsoleConnectionTest, BadFieldsAreNamedAndNothingIsSaved)
{
    ConsoleSettings consoleSettings;
    PasswordVault vault;
    ConnectDialog dialog(&consoleSettings, &vault);
    dialog.show();
    fillHostFields(dialog, QString(), QStringLiteral("alice"));
    QSignalSpy attempted(&dialog, &ConnectDialog::attempted);
    dialog.connectToServer();
    EXPECT_TRUE(dialog.banner()->isVisible());
    EXPECT_TRUE(dialog.banner()->text().contains(QLatin1String("name")))
        << qPrintable(dialog.banner()->text());
    EXPECT_EQ(dialog.focusWidget(), dialog.field(QStringLiteral("name")));

    fillHostFields(dialog, QStringLiteral("tls"), QStringLiteral("alice"));
    auto *mode = qobject_cast<QComboBox *>(dialog.field(QStringLiteral("sslmode")));
    mode->setCurrentIndex(mode->findData(QStringLiteral("verify-full")));
    qobject_cast<QLineEdit *>(dialog.field(QStringLiteral("sslrootcert")))
        ->setText(QStringLiteral("/nonexistent/root.crt"));
    dialog.connectToServer();
    EXPECT_TRUE(dialog.banner()->text().contains(QLatin1String("/nonexistent/root.crt")));
    EXPECT_EQ(attempted.size(), 0); // nothing was tried
    EXPECT_TRUE(consoleSettings.profiles().isEmpty());
}

TEST_F(ConsoleConnectionTest, ASavedProfileComesBackAndCanBeRenamedOrDeleted)
{
    ConsoleSettings consoleSettings;
    ConnectionProfile first;
    first.name = QStringLiteral("alpha");
    first.host = QStringLiteral("db-a");
    ConnectionProfile second;
    second.name = QStringLiteral("beta");
    second.kind = ConnectionProfile::Kind::Service;
    second.service = QStringLiteral("keel-beta");
    second.sslMode = QStringLiteral("require");
    consoleSettings.saveProfile(first);
    consoleSettings.saveProfile(second);
    consoleSettings.setLastProfile(QStringLiteral("beta"));

    PasswordVault vault;
    ConnectDialog dialog(&consoleSettings, &vault);
    EXPECT_EQ(dialog.profileName(), QStringLiteral("beta"));
    EXPECT_EQ(qobject_cast<QLineEdit *>(dialog.field(QStringLiteral("service")))->text(),
              QStringLiteral("keel-beta"));
    EXPECT_EQ(qobject_cast<QComboBox *>(dialog.field(QStringLiteral("sslmode")))->currentData(),
              QStringLiteral("require"));

    // Renaming keeps the profile's place; the old name is gone.
    ConnectionProfile renamed = second;
    renamed.name = QStringLiteral("gamma");
    consoleSettings.saveProfile(renamed, QStringLiteral("beta"));
    QStringList names;
    for (const ConnectionProfile &profile : consoleSettings.profiles())
        names << profile.name;
    EXPECT_EQ(names, (QStringList{QStringLiteral("alpha"), QStringLiteral("gamma")}));

    dialog.selectProfile(QStringLiteral("alpha"));
    dialog.deleteProfile();
    ASSERT_EQ(consoleSettings.profiles().size(), 1);
    EXPECT_EQ(consoleSettings.profiles().first().name, QStringLiteral("gamma"));
}

TEST_F(ConsoleConnectionTest, EachRoleSeesOnlyTheViewsItsGrantsAllow)
{
    ConsoleSettings consoleSettings;
    const auto open = [&](const QString &groupRole, auto check) {
        QueryWorker worker(loginAs(groupRole));
        worker.start();
        MainWindow window(&worker, &consoleSettings);
        window.show();
        QSignalSpy loaded(&window, &MainWindow::sessionLoaded);
        ASSERT_TRUE(loaded.wait(15000)) << qPrintable(groupRole);
        check(window);
        worker.stop();
    };
    open(QStringLiteral("keel_auditor"), [](MainWindow &window) {
        EXPECT_TRUE(window.viewEnabled(QStringLiteral("overview")));
        EXPECT_TRUE(window.viewEnabled(QStringLiteral("history")));
        EXPECT_FALSE(window.session().canProposeActions());
        EXPECT_FALSE(window.session().canApproveActions());
    });
    open(QStringLiteral("keel_sre"), [](MainWindow &window) {
        EXPECT_TRUE(window.viewEnabled(QStringLiteral("overview")));
        EXPECT_FALSE(window.viewEnabled(QStringLiteral("history")));
        EXPECT_FALSE(window.showView(QStringLiteral("history")));
        QSignalSpy refreshed(window.overview(), &OverviewView::refreshed);
        QSignalSpy failed(window.overview(), &OverviewView::refreshFailed);
        window.overview()->refresh();
        ASSERT_TRUE(refreshed.wait(15000));
        EXPECT_EQ(failed.size(), 0);
        EXPECT_FALSE(window.overview()->data().suspenseShown);
    });
    open(QStringLiteral("pg_monitor"), [](MainWindow &window) { // no keel role at all
        EXPECT_FALSE(window.viewEnabled(QStringLiteral("overview")));
        EXPECT_FALSE(window.viewEnabled(QStringLiteral("history")));
        EXPECT_TRUE(window.banner()->text().contains(QLatin1String("no keel role")))
            << qPrintable(window.banner()->text());
    });
}

TEST_F(ConsoleConnectionTest, ANotificationRefreshesTheOverviewBeforeTheNextPoll)
{
    ConsoleSettings consoleSettings;
    QueryWorker worker(settings());
    worker.start();
    LiveFeed live(settings());
    QSignalSpy listening(&live, &LiveFeed::listeningChanged);
    ASSERT_TRUE(listening.wait(15000));
    MainWindow window(&worker, &worker, &consoleSettings, &live);
    QSignalSpy refreshed(window.overview(), &OverviewView::refreshed);
    ASSERT_TRUE(refreshed.wait(15000));            // the first load
    EXPECT_TRUE(window.overview()->liveUpdates()); // polling only every 30 s now

    const qint64 minute = (QDateTime::currentSecsSinceEpoch() / 60 - 1) * 60;
    exec(settings(), "INSERT INTO keel.metrics_minute (metric, le_micros, minute, source, count, "
                     "total) VALUES ('idempotency.new', 0, to_timestamp(" +
                         QByteArray::number(minute) +
                         "), 'gw', 17, 0); "
                         "NOTIFY keel_metrics, 'gw'");
    ASSERT_TRUE(refreshed.wait(5000)) << "no refresh within 5 s of the notification";
    const QList<qint64> created =
        window.overview()->data().series(QStringLiteral("idempotency.new"));
    EXPECT_EQ(std::accumulate(created.cbegin(), created.cend(), qint64(0)), 17);
    worker.stop();
}

TEST_F(ConsoleConnectionTest, DashboardsAndHistoryReadFromTheReplica)
{
    // A second database stands in for the replica: it holds other numbers, so
    // what the window shows says where it read them.
    auto replicaName = TestCluster::instance().createDatabase(QStringLiteral("keel_replica"));
    ASSERT_TRUE(replicaName.ok());
    const ConnectionSettings replica = TestCluster::instance().settings(*replicaName);
    {
        auto replicaDb = QtSqlConnections::connect(replica, QStringLiteral("keel-test-replica"));
        ASSERT_TRUE(replicaDb.ok());
        Migrator migrator(*replicaDb, *MigrationSource::load());
        ASSERT_TRUE(migrator.migrate().ok());
    }
    const QByteArray minute =
        QByteArray::number((QDateTime::currentSecsSinceEpoch() / 60 - 1) * 60);
    exec(settings(), "INSERT INTO keel.metrics_minute (metric, le_micros, minute, source, count, "
                     "total) VALUES ('idempotency.new', 0, to_timestamp(" +
                         minute + "), 'p', 5, 0)");
    exec(replica, "INSERT INTO keel.metrics_minute (metric, le_micros, minute, source, count, "
                  "total) VALUES ('idempotency.new', 0, to_timestamp(" +
                      minute + "), 'r', 11, 0)");

    ConsoleSettings consoleSettings;
    QueryWorker primaryWorker(settings());
    QueryWorker replicaWorker(replica);
    primaryWorker.start();
    replicaWorker.start();
    {
        MainWindow window(&primaryWorker, &replicaWorker, &consoleSettings);
        QSignalSpy refreshed(window.overview(), &OverviewView::refreshed);
        ASSERT_TRUE(refreshed.wait(15000));
        const QList<qint64> created =
            window.overview()->data().series(QStringLiteral("idempotency.new"));
        EXPECT_EQ(std::accumulate(created.cbegin(), created.cend(), qint64(0)), 11);
        EXPECT_EQ(window.session().database, m_database); // who am I: the primary
    }
    primaryWorker.stop();
    replicaWorker.stop();
    QtSqlConnections::closeThreadConnections();
    TestCluster::instance().dropDatabase(*replicaName);
}

TEST_F(ConsoleConnectionTest, AWrongPasswordIsRefusedRatherThanAskedFor)
{
    const QString user = createPasswordLogin(QStringLiteral("the right one"));
    ConsoleSettings consoleSettings;
    PasswordVault vault;
    ConnectDialog dialog(&consoleSettings, &vault);
    dialog.show();
    fillHostFields(dialog, QStringLiteral("typo"), user);
    qobject_cast<QLineEdit *>(dialog.field(QStringLiteral("password")))
        ->setText(QStringLiteral("the wrong one"));
    QSignalSpy attempted(&dialog, &ConnectDialog::attempted);
    dialog.connectToServer();
    ASSERT_TRUE(attempted.wait(15000));
    EXPECT_EQ(attempted.last().at(0).value<ConnectionCheck::Outcome>(),
              ConnectionCheck::Outcome::PasswordRefused);
    EXPECT_TRUE(dialog.banner()->text().contains(QLatin1String("refused")))
        << qPrintable(dialog.banner()->text());
    EXPECT_FALSE(dialog.banner()->text().contains(QLatin1String("the wrong one")));
    EXPECT_TRUE(
        qobject_cast<QLineEdit *>(dialog.field(QStringLiteral("password")))->text().isEmpty());
}

TEST_F(ConsoleConnectionTest, ConnectingElsewhereIsAskedForFromTheWindowAndSessionsComeAndGo)
{
    ConsoleSettings consoleSettings;
    auto first = std::make_unique<ConsoleSession>(settings(), std::nullopt, &consoleSettings);
    QSignalSpy loaded(first->window(), &MainWindow::sessionLoaded);
    ASSERT_TRUE(loaded.wait(15000));
    QSignalSpy asked(first.get(), &ConsoleSession::connectRequested);
    QAction *connectTo = nullptr;
    for (QAction *action : first->window()->findChildren<QAction *>())
        if (action->shortcut() == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O))
            connectTo = action;
    ASSERT_NE(connectTo, nullptr);
    connectTo->trigger();
    ASSERT_TRUE(asked.wait(5000));

    // The old session stops its threads; a new one on another login works.
    first.reset();
    ConsoleSession second(loginAs(QStringLiteral("keel_auditor")), std::nullopt, &consoleSettings);
    QSignalSpy secondLoaded(second.window(), &MainWindow::sessionLoaded);
    ASSERT_TRUE(secondLoaded.wait(15000));
    EXPECT_TRUE(second.window()->session().keelRoles.contains(QStringLiteral("keel_auditor")));
}
