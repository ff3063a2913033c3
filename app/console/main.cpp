// keel-console: the desktop console. Thin: it parses options, starts the
// embedded default for --demo, and shows the main window.
#include "core/channel/SimulatedChannel.h"
#include "core/db/ConnectionSettings.h"
#include "core/dev/DevStack.h"
#include "core/sim/TrafficSimulator.h"
#include "ui/Appearance.h"
#include "ui/ConnectDialog.h"
#include "ui/ConsoleSession.h"
#include "ui/ConsoleSettings.h"
#include "ui/HistoryModel.h"
#include "ui/HistoryView.h"
#include "ui/MainWindow.h"
#include "ui/OverviewView.h"
#include "ui/PasswordVault.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QStyleFactory>
#include <QTimer>

#include <atomic>
#include <cstdio>
#include <functional>
#include <optional>
#include <thread>

using namespace keel;

namespace {

int failWith(const QString &message, int code)
{
    std::fprintf(stderr, "keel-console: %s\n", qPrintable(message));
    return code;
}

// The demo's moving parts besides the window: traffic, and the gateway's
// housekeeping (which writes the rollups the dashboards read), off the GUI thread.
class DemoTraffic final {
public:
    explicit DemoTraffic(DevStack &stack)
        : m_simulator({stack.gatewayUrl(), stack.apiKey(), 12.0, 0, 3}),
          m_traffic([this] { (void)m_simulator.run(); }), m_housekeeping([this, &stack] {
              while (!m_stopping) {
                  stack.gateway().maintain();
                  for (int i = 0; i < 20 && !m_stopping; ++i)
                      std::this_thread::sleep_for(std::chrono::milliseconds(100));
              }
          })
    {}
    ~DemoTraffic()
    {
        m_stopping = true;
        m_simulator.stop();
        m_traffic.join();
        m_housekeeping.join();
    }

private:
    std::atomic<bool> m_stopping{false};
    TrafficSimulator m_simulator;
    std::thread m_traffic;
    std::thread m_housekeeping;
};

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("keel-console"));
    QApplication::setOrganizationName(QStringLiteral("keel"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("keel's desktop console"));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("db"),
                      QStringLiteral("Connect to this PostgreSQL (libpq URI or key=value)."),
                      QStringLiteral("DSN")});
    parser.addOption({QStringLiteral("replica"),
                      QStringLiteral("With --db: read dashboards and history from this server "
                                     "(a streaming replica)."),
                      QStringLiteral("DSN")});
    parser.addOption({QStringLiteral("demo"),
                      QStringLiteral("Start the embedded default: private PostgreSQL, gateway and "
                                     "simulated traffic.")});
    parser.addOption({QStringLiteral("dir"), QStringLiteral("Data directory for --demo."),
                      QStringLiteral("DIR")});
    parser.addOption(
        {QStringLiteral("screenshot"),
         QStringLiteral("Render the view to FILE (PNG) once its data has loaded, then exit."),
         QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("view"),
                      QStringLiteral("View to show: overview, history, or connect (the "
                                     "connection dialog)."),
                      QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("wait"),
                      QStringLiteral("With --screenshot: wait at least this long first (seconds)."),
                      QStringLiteral("S")});
    parser.addOption({QStringLiteral("lang"),
                      QStringLiteral("Language: zh_CN or en (remembered; default: the system's)."),
                      QStringLiteral("LANG")});
    parser.addOption({QStringLiteral("theme"),
                      QStringLiteral("Colours: light or dark (remembered)."),
                      QStringLiteral("THEME")});
    parser.process(app);
    ConsoleSettings consoleSettings;
    if (parser.isSet(QStringLiteral("lang"))) {
        const QString language = parser.value(QStringLiteral("lang"));
        if (language != QLatin1String("zh_CN") && language != QLatin1String("en"))
            return failWith(QStringLiteral("--lang must be zh_CN or en; got \"%1\"").arg(language),
                            2);
        consoleSettings.setLanguage(language);
    }
    if (parser.isSet(QStringLiteral("theme"))) {
        const QString theme = parser.value(QStringLiteral("theme"));
        if (theme != QLatin1String("light") && theme != QLatin1String("dark"))
            return failWith(QStringLiteral("--theme must be light or dark; got \"%1\"").arg(theme),
                            2);
        consoleSettings.setTheme(theme);
    }
    Appearance::applyTheme(app, consoleSettings.theme());
    Appearance::applyLanguage(app, consoleSettings.language());
    const QString view = parser.isSet(QStringLiteral("view")) ? parser.value(QStringLiteral("view"))
                                                              : QStringLiteral("overview");
    if (view != QLatin1String("overview") && view != QLatin1String("history") &&
        view != QLatin1String("connect"))
        return failWith(
            QStringLiteral("--view must be overview, history or connect; got \"%1\"").arg(view), 2);
    if (view == QLatin1String("connect")) {
        // The connection dialog alone, as a first start shows it.
        PasswordVault vault;
        ConnectDialog dialog(&consoleSettings, &vault);
        if (!parser.isSet(QStringLiteral("screenshot")))
            return dialog.exec() == QDialog::Accepted ? 0 : 1;
        dialog.show();
        QTimer::singleShot(500, &dialog, [&] {
            const QString file = parser.value(QStringLiteral("screenshot"));
            if (!dialog.grab().save(file))
                std::fprintf(stderr, "keel-console: cannot write %s\n", qPrintable(file));
            QApplication::exit(0);
        });
        return QApplication::exec();
    }

    std::unique_ptr<DevStack> stack;
    std::unique_ptr<DemoTraffic> traffic;
    ConnectionSettings settings;
    std::optional<ConnectionSettings> replica;
    PasswordVault vault;
    if (parser.isSet(QStringLiteral("demo"))) {
        DevStack::Options options;
        options.cluster.dataDirectory =
            parser.isSet(QStringLiteral("dir"))
                ? parser.value(QStringLiteral("dir"))
                : DevStack::defaultDirectory() + QStringLiteral("-demo");
        // Realistic trouble for the dashboards to show.
        options.gateway.channel = simulatedChannel({15, 0.03, 0.01, 0.02});
        options.gateway.reconcileGraceSeconds = 10;
        options.gateway.http.threads = 4;
        Result<std::unique_ptr<DevStack>> started = DevStack::start(options);
        if (!started)
            return failWith(started.error().message, 4);
        stack = std::move(started).value();
        settings = stack->database();
        traffic = std::make_unique<DemoTraffic>(*stack);
    } else if (parser.isSet(QStringLiteral("db")) || !qEnvironmentVariableIsEmpty("KEEL_DB")) {
        const QString dsn = parser.isSet(QStringLiteral("db")) ? parser.value(QStringLiteral("db"))
                                                               : qEnvironmentVariable("KEEL_DB");
        Result<ConnectionSettings> parsed = ConnectionSettings::parse(dsn);
        if (!parsed)
            return failWith(parsed.error().message, 2);
        settings = *parsed;
        if (parser.isSet(QStringLiteral("replica"))) {
            Result<ConnectionSettings> replicaParsed =
                ConnectionSettings::parse(parser.value(QStringLiteral("replica")));
            if (!replicaParsed)
                return failWith(QStringLiteral("--replica: %1").arg(replicaParsed.error().message),
                                2);
            replica = *replicaParsed;
        }
    } else {
        // Nothing on the command line: the connection dialog and its saved profiles.
        ConnectDialog dialog(&consoleSettings, &vault);
        if (dialog.exec() != QDialog::Accepted)
            return 0;
        settings = dialog.primary();
        replica = dialog.replica();
    }

    auto session = std::make_unique<ConsoleSession>(settings, replica, &consoleSettings);
    // Connecting elsewhere replaces the session once the dialog is accepted;
    // the old one goes after its window's signal has returned.
    const std::function<void()> connectElsewhere = [&] {
        ConnectDialog dialog(&consoleSettings, &vault, session->window());
        if (dialog.exec() != QDialog::Accepted)
            return;
        consoleSettings.setWindowGeometry(session->window()->saveGeometry());
        const QString shown = session->window()->currentView();
        auto next =
            std::make_unique<ConsoleSession>(dialog.primary(), dialog.replica(), &consoleSettings);
        QObject::connect(next.get(), &ConsoleSession::connectRequested, next.get(),
                         connectElsewhere);
        next->window()->showView(shown);
        next->window()->show();
        session->window()->hide();
        std::swap(session, next);
        next.release()->deleteLater();
    };
    QObject::connect(session.get(), &ConsoleSession::connectRequested, session.get(),
                     connectElsewhere);
    // The screenshot path below never switches connections, so its window stays.
    MainWindow &window = *session->window();
    window.showView(view);
    window.show();

    if (parser.isSet(QStringLiteral("screenshot"))) {
        const QString file = parser.value(QStringLiteral("screenshot"));
        // In the demo, wait for the first rollups to reach the charts.
        const bool wantTraffic = stack != nullptr;
        const qint64 minimumWaitMs = parser.value(QStringLiteral("wait")).toLongLong() * 1000;
        QElapsedTimer waited;
        waited.start();
        QObject::connect(window.overview(), &OverviewView::refreshed, &window, [&] {
            const OverviewData &data = window.overview()->data();
            bool hasTraffic = false;
            for (const qint64 value : data.series(QStringLiteral("idempotency.new")))
                hasTraffic = hasTraffic || value > 0;
            // Payments by state appear once housekeeping has folded the first events.
            hasTraffic = hasTraffic && !data.stateLevels.isEmpty();
            if ((wantTraffic && !hasTraffic && waited.elapsed() < 40000) ||
                waited.elapsed() < minimumWaitMs) {
                QTimer::singleShot(1500, window.overview(), &OverviewView::refresh);
                return;
            }
            const auto shoot = [&] {
                QTimer::singleShot(300, &window, [&] {
                    if (!window.grab().save(file))
                        std::fprintf(stderr, "keel-console: cannot write %s\n", qPrintable(file));
                    QApplication::exit(0);
                });
            };
            if (view == QLatin1String("overview")) {
                shoot();
                return;
            }
            // History: search, open the newest payment's timeline, then render.
            QObject::disconnect(window.overview(), &OverviewView::refreshed, &window, nullptr);
            QObject::connect(
                window.history()->model(), &HistoryModel::pageLoaded, &window,
                [&] {
                    // A settled payment has the fuller trail to show.
                    const HistoryModel *model = window.history()->model();
                    int row = 0;
                    for (int i = 0; i < model->rowCount(); ++i) {
                        if (model->rowAt(i).state == QLatin1String("Refunded") ||
                            (row == 0 && model->rowAt(i).state == QLatin1String("Captured")))
                            row = i;
                        if (model->rowAt(i).state == QLatin1String("Refunded"))
                            break;
                    }
                    window.history()->selectRow(row);
                },
                Qt::SingleShotConnection);
            QObject::connect(window.history(), &HistoryView::timelineLoaded, &window, shoot,
                             Qt::SingleShotConnection);
            window.history()->search();
        });
        QObject::connect(window.overview(), &OverviewView::refreshFailed, &window,
                         [](const QString &message) {
                             std::fprintf(stderr, "keel-console: %s\n", qPrintable(message));
                             QApplication::exit(3);
                         });
    }
    const int code = QApplication::exec();
    session.reset();
    traffic.reset();
    if (stack)
        (void)stack->stop();
    return code;
}
