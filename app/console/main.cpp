// keel-console: the desktop console. Thin: it parses options, starts the
// embedded default for --demo, and shows the main window.
#include "ConsoleOptions.h"
#include "DemoTraffic.h"
#include "Screenshot.h"

#include "core/ServiceLog.h"
#include "core/channel/SimulatedChannel.h"
#include "core/db/ConnectionSettings.h"
#include "devkit/stack/DevStack.h"
#include "ui/Appearance.h"
#include "ui/ConnectDialog.h"
#include "ui/ConsoleSession.h"
#include "ui/ConsoleSettings.h"
#include "ui/MainWindow.h"
#include "ui/PasswordVault.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include <cstdio>
#include <functional>
#include <memory>
#include <optional>

using namespace keel;

namespace {

int failWith(const QString &message, int code)
{
    std::fprintf(stderr, "keel-console: %s\n", qPrintable(message));
    return code;
}

// --view connect: the connection dialog alone, as a first start shows it.
int runConnectDialog(const ConsoleOptions &options, ConsoleSettings &settings)
{
    PasswordVault vault;
    ConnectDialog dialog(&settings, &vault);
    if (options.screenshot.isEmpty())
        return dialog.exec() == QDialog::Accepted ? 0 : 1;
    dialog.show();
    QTimer::singleShot(500, &dialog, [&] {
        if (!dialog.grab().save(options.screenshot))
            std::fprintf(stderr, "keel-console: cannot write %s\n", qPrintable(options.screenshot));
        QApplication::exit(0);
    });
    return QApplication::exec();
}

// What the console connects to: the demo's own stack, the command line's
// database, or what the person picks in the connection dialog.
struct Target {
    ConnectionSettings primary;
    std::optional<ConnectionSettings> replica;
    std::unique_ptr<DevStack> stack;
    std::unique_ptr<DemoTraffic> traffic;
    bool chosen = false;
};

Result<Target> startDemo(const ConsoleOptions &options)
{
    DevStack::Options demo;
    demo.cluster.dataDirectory = options.demoDirectory.isEmpty()
                                     ? DevStack::defaultDirectory() + QStringLiteral("-demo")
                                     : options.demoDirectory;
    // Realistic trouble for the dashboards to show.
    demo.channelSimulator = SimulatedChannelConfig{15, 0.03, 0.01, 0.02};
    demo.simulatorProtocol =
        options.demoChannel == QLatin1String("alipay")      ? SimulatorProtocol::Alipay
        : options.demoChannel == QLatin1String("wechatpay") ? SimulatorProtocol::WechatPay
                                                            : SimulatorProtocol::Keel;
    demo.gateway.reconcileGraceSeconds = 10;
    demo.gateway.http.threads = 4;
    // A notification nobody answers gives up within about a minute, not three days.
    demo.notifications.retryDelaysSeconds = {3, 10, 30};
    // Nobody has subscribed to parked-saga events yet: the broker returns
    // them, and after three tries the relay parks them for the Outbox view.
    demo.eventBindings = {QStringLiteral("charge.#"), QStringLiteral("refund.#"),
                          QStringLiteral("saga.saga.succeeded"),
                          QStringLiteral("saga.saga.compensated")};
    demo.relayMaxAttempts = 3;
    Result<std::unique_ptr<DevStack>> started = DevStack::start(demo);
    if (!started)
        return started.error();
    Target target;
    target.stack = std::move(started).value();
    // The person at the console holds every role a person may, as a login of
    // them, never the superuser: maker-checker still stops approving one's own.
    Result<ConnectionSettings> person =
        target.stack->personLogin(QStringLiteral("demo_person"),
                                  {QStringLiteral("keel_operator"), QStringLiteral("keel_approver"),
                                   QStringLiteral("keel_auditor"), QStringLiteral("keel_sre")});
    if (!person)
        return person.error();
    target.primary = *person;
    target.traffic = std::make_unique<DemoTraffic>(*target.stack);
    target.chosen = true;
    return target;
}

Target pickTarget(const ConsoleOptions &options, ConsoleSettings &settings, PasswordVault &vault)
{
    Target target;
    if (options.database) {
        target.primary = *options.database;
        target.replica = options.replica;
        target.chosen = true;
        return target;
    }
    // Nothing on the command line: the connection dialog and its saved profiles.
    ConnectDialog dialog(&settings, &vault);
    if (dialog.exec() != QDialog::Accepted)
        return target;
    target.primary = dialog.primary();
    target.replica = dialog.replica();
    target.chosen = true;
    return target;
}

// Connecting elsewhere replaces the session once the dialog is accepted; the
// old one goes after its window's signal has returned.
void offerReconnecting(std::unique_ptr<ConsoleSession> &session, ConsoleSettings &settings,
                       PasswordVault &vault)
{
    const auto connectElsewhere = std::make_shared<std::function<void()>>();
    *connectElsewhere = [&session, &settings, &vault, connectElsewhere] {
        ConnectDialog dialog(&settings, &vault, session->window());
        if (dialog.exec() != QDialog::Accepted)
            return;
        settings.setWindowGeometry(session->window()->saveGeometry());
        const QString shown = session->window()->currentView();
        auto next = std::make_unique<ConsoleSession>(dialog.primary(), dialog.replica(), &settings);
        QObject::connect(next.get(), &ConsoleSession::connectRequested, next.get(),
                         [connectElsewhere] { (*connectElsewhere)(); });
        next->window()->showView(shown);
        next->window()->show();
        session->window()->hide();
        std::swap(session, next);
        next.release()->deleteLater();
    };
    QObject::connect(session.get(), &ConsoleSession::connectRequested, session.get(),
                     [connectElsewhere] { (*connectElsewhere)(); });
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    // Demo mode runs the services in this process; their lines go to stderr.
    keel::ServiceLog::setSink([](keel::ServiceLog::Level, const QString &line) {
        std::fprintf(stderr, "keel-console: %s\n", qPrintable(line));
    });
    QApplication::setApplicationName(QStringLiteral("keel-console"));
    QApplication::setOrganizationName(QStringLiteral("keel"));
    QCommandLineParser parser;
    ConsoleOptions::declare(parser);
    parser.process(app);
    ConsoleSettings consoleSettings;
    Result<ConsoleOptions> options = ConsoleOptions::read(parser, consoleSettings);
    if (!options)
        return failWith(options.error().message, 2);
    Appearance::applyTheme(app, consoleSettings.theme());
    Appearance::applyLanguage(app, consoleSettings.language());
    if (options->view == QLatin1String("connect"))
        return runConnectDialog(*options, consoleSettings);

    PasswordVault vault;
    Result<Target> target = options->demo
                                ? startDemo(*options)
                                : Result<Target>(pickTarget(*options, consoleSettings, vault));
    if (!target)
        return failWith(target.error().message, 4);
    if (!target->chosen)
        return 0;
    auto session =
        std::make_unique<ConsoleSession>(target->primary, target->replica, &consoleSettings);
    offerReconnecting(session, consoleSettings, vault);
    // The screenshot path never switches connections, so its window stays.
    MainWindow &window = *session->window();
    window.showView(options->view);
    window.show();
    if (!options->screenshot.isEmpty())
        new Screenshot(window, options->view, options->screenshot, target->stack != nullptr,
                       options->minimumWaitMs);
    const int code = QApplication::exec();
    session.reset();
    target->traffic.reset();
    if (target->stack)
        (void)target->stack->stop();
    return code;
}
