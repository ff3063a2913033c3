#include "ui/Appearance.h"
#include "ui/ChartPanel.h"
#include "ui/MessageBanner.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QToolButton>

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

TEST(Appearance, DarkThemeDarkensTheBase)
{
    auto *app = qobject_cast<QApplication *>(QCoreApplication::instance());
    Appearance::applyTheme(*app, QStringLiteral("dark"));
    EXPECT_LT(QApplication::palette().color(QPalette::Base).lightness(), 60);
    Appearance::applyTheme(*app, QStringLiteral("light"));
    EXPECT_GT(QApplication::palette().color(QPalette::Base).lightness(), 200);
}
