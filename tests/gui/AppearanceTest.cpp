#include "ui/Appearance.h"
#include "core/db/ConnectionSettings.h"
#include "ui/ChartPanel.h"
#include "ui/ConsoleSettings.h"
#include "ui/ConsoleShell.h"
#include "ui/MainWindow.h"
#include "ui/MessageBanner.h"
#include "ui/QueryWorker.h"
#include "ui/StatusWords.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QListWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QToolButton>

#include <algorithm>

using namespace keel;

// The catalogue must match the contexts tr() uses at run time ("keel::X");
// a catalogue generated without the include path loads fine and translates
// nothing, which only a test like this notices.
TEST(Appearance, SimplifiedChineseTranslatesTheConsole)
{
    auto *app = qobject_cast<QApplication *>(QCoreApplication::instance());
    ASSERT_NE(app, nullptr);
    EXPECT_EQ(Appearance::applyLanguage(*app, QStringLiteral("zh_CN")), QStringLiteral("zh_CN"));
    ChartPanel panel(QStringLiteral("t"), QStringLiteral("u"));
    auto *exportButton = panel.findChild<QToolButton *>();
    ASSERT_NE(exportButton, nullptr);
    EXPECT_EQ(exportButton->text(), QString::fromUtf8("导出…"));
    MessageBanner banner;
    EXPECT_EQ(banner.findChild<QToolButton *>()->accessibleName(), QString::fromUtf8("关闭消息"));
}

// The statuses the queues show come from the database in English; each has
// its word in the Chinese catalogue.
TEST(Appearance, NoStatusWordStaysUntranslatedInSimplifiedChinese)
{
    auto *app = qobject_cast<QApplication *>(QCoreApplication::instance());
    ASSERT_EQ(Appearance::applyLanguage(*app, QStringLiteral("zh_CN")), QStringLiteral("zh_CN"));
    for (const QString &status : knownStatuses()) {
        const QString word = statusWord(status);
        EXPECT_FALSE(word.isEmpty());
        EXPECT_TRUE(std::none_of(word.cbegin(), word.cend(),
                                 [](QChar c) { return c.isLetter() && c.unicode() < 0x80; }))
            << qPrintable(status) << " shows as " << qPrintable(word);
    }
    Appearance::applyLanguage(*app, QStringLiteral("en"));
    EXPECT_EQ(statusWord(QStringLiteral("in_review")), QStringLiteral("in review"));
}

TEST(Appearance, DarkThemeDarkensTheBase)
{
    auto *app = qobject_cast<QApplication *>(QCoreApplication::instance());
    Appearance::applyTheme(*app, QStringLiteral("dark"));
    EXPECT_LT(QApplication::palette().color(QPalette::Base).lightness(), 60);
    Appearance::applyTheme(*app, QStringLiteral("light"));
    EXPECT_GT(QApplication::palette().color(QPalette::Base).lightness(), 200);
}

// Picking a language or theme in the View menu applies at once: the shell
// builds the window again, in the same place and on the same view.
TEST(Appearance, LanguageAndThemeSwitchWithoutARestart)
{
    QTemporaryDir config;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, config.path());
    ConsoleSettings settings;
    settings.setLanguage(QStringLiteral("en"));
    settings.setTheme(QStringLiteral("light"));
    auto *app = qobject_cast<QApplication *>(QCoreApplication::instance());
    Appearance::applyLanguage(*app, QStringLiteral("en"));
    Appearance::applyTheme(*app, QStringLiteral("light"));
    // Nothing listens there: the window shows that inline and carries on.
    QueryWorker worker(*ConnectionSettings::parse(
        QStringLiteral("host=/nonexistent-keel-socket-dir connect_timeout=1")));
    worker.start();
    {
        ConsoleShell shell(&worker, &worker, &settings);
        shell.window()->show();
        shell.window()->showView(QStringLiteral("history"));
        auto *navigation = shell.window()->findChild<QListWidget *>();
        ASSERT_NE(navigation, nullptr);
        EXPECT_EQ(navigation->item(0)->text(), QStringLiteral("Overview"));

        QSignalSpy replaced(&shell, &ConsoleShell::windowReplaced);
        Q_EMIT shell.window()->appearanceRequested(QStringLiteral("zh_CN"), QStringLiteral("dark"));
        ASSERT_TRUE(replaced.wait(5000));
        navigation = shell.window()->findChild<QListWidget *>();
        EXPECT_EQ(navigation->item(0)->text(), QString::fromUtf8("总览"));
        EXPECT_TRUE(shell.window()->isVisible());
        EXPECT_LT(QApplication::palette().color(QPalette::Base).lightness(), 60);
        EXPECT_EQ(settings.language(), QStringLiteral("zh_CN"));
        EXPECT_EQ(settings.theme(), QStringLiteral("dark"));

        // And back: the Chinese catalogue is removed, not stacked.
        Q_EMIT shell.window()->appearanceRequested(QStringLiteral("en"), QStringLiteral("light"));
        ASSERT_TRUE(replaced.wait(5000));
        navigation = shell.window()->findChild<QListWidget *>();
        EXPECT_EQ(navigation->item(0)->text(), QStringLiteral("Overview"));
        EXPECT_GT(QApplication::palette().color(QPalette::Base).lightness(), 200);
    }
    worker.stop();
}
