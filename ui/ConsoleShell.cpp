#include "ui/ConsoleShell.h"

#include "ui/Appearance.h"
#include "ui/ConsoleSettings.h"
#include "ui/MainWindow.h"

#include <QApplication>

namespace keel {

ConsoleShell::ConsoleShell(QueryWorker *primary, QueryWorker *reads, ConsoleSettings *settings,
                           LiveFeed *live, QObject *parent)
    : QObject(parent), m_primary(primary), m_reads(reads), m_settings(settings), m_live(live)
{
    m_window = build();
}

ConsoleShell::~ConsoleShell()
{
    delete m_window;
}

MainWindow *ConsoleShell::build()
{
    auto *window = new MainWindow(m_primary, m_reads, m_settings, m_live);
    connect(window, &MainWindow::appearanceRequested, this, &ConsoleShell::applyAppearance,
            Qt::QueuedConnection); // the old window's menu is still on the stack
    connect(window, &MainWindow::connectRequested, this, &ConsoleShell::connectRequested,
            Qt::QueuedConnection);
    return window;
}

void ConsoleShell::applyAppearance(const QString &language, const QString &theme)
{
    auto *app = qobject_cast<QApplication *>(QCoreApplication::instance());
    if (!app)
        return;
    m_settings->setLanguage(language);
    m_settings->setTheme(theme);
    Appearance::applyTheme(*app, theme);
    Appearance::applyLanguage(*app, language);

    MainWindow *old = m_window;
    const QByteArray geometry = old->saveGeometry();
    const QString view = old->currentView();
    const bool visible = old->isVisible();
    m_window = build();
    m_window->restoreGeometry(geometry);
    m_window->showView(view);
    if (visible)
        m_window->show();
    old->hide();
    old->deleteLater();
    Q_EMIT windowReplaced();
}

} // namespace keel
