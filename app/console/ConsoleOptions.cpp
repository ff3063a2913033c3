#include "ConsoleOptions.h"

#include "ui/ConsoleSettings.h"

#include <QCommandLineParser>

namespace keel {
namespace {

Status oneOf(const QString &option, const QString &value, const QStringList &allowed)
{
    if (allowed.contains(value))
        return {};
    return fieldError(option, QStringLiteral("parameter_invalid"),
                      QStringLiteral("--%1 must be %2; got \"%3\"")
                          .arg(option, allowed.join(QStringLiteral(" or ")), value));
}

Result<std::optional<ConnectionSettings>> dsnOption(const QCommandLineParser &parser,
                                                    const QString &option, const QString &fallback)
{
    const QString dsn = parser.isSet(option) ? parser.value(option) : fallback;
    if (dsn.isEmpty())
        return std::optional<ConnectionSettings>();
    Result<ConnectionSettings> parsed = ConnectionSettings::parse(dsn);
    if (!parsed)
        return fieldError(option, parsed.error().code,
                          QStringLiteral("--%1: %2").arg(option, parsed.error().message));
    return std::optional<ConnectionSettings>(*parsed);
}

} // namespace

void ConsoleOptions::declare(QCommandLineParser &parser)
{
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
    parser.addOption({QStringLiteral("demo-channel"),
                      QStringLiteral("With --demo: sim (keel's channel wire, the default), "
                                     "alipay or wechatpay (the simulator speaks Alipay's "
                                     "OpenAPI or WeChat Pay API v3; yuan payments)."),
                      QStringLiteral("sim|alipay|wechatpay")});
    parser.addOption(
        {QStringLiteral("screenshot"),
         QStringLiteral("Render the view to FILE (PNG) once its data has loaded, then exit."),
         QStringLiteral("FILE")});
    parser.addOption(
        {QStringLiteral("view"),
         QStringLiteral("View to show: overview, charts (every Overview chart), history, "
                        "sagas, suspense, outbox, "
                        "approvals, audit, recon, or connect (the "
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
}

Result<ConsoleOptions> ConsoleOptions::read(const QCommandLineParser &parser,
                                            ConsoleSettings &settings)
{
    ConsoleOptions options;
    const QString language = parser.value(QStringLiteral("lang"));
    const QString theme = parser.value(QStringLiteral("theme"));
    if (parser.isSet(QStringLiteral("view")))
        options.view = parser.value(QStringLiteral("view"));
    for (const Status &checked :
         {parser.isSet(QStringLiteral("lang"))
              ? oneOf(QStringLiteral("lang"), language,
                      {QStringLiteral("zh_CN"), QStringLiteral("en")})
              : Status(),
          parser.isSet(QStringLiteral("theme"))
              ? oneOf(QStringLiteral("theme"), theme,
                      {QStringLiteral("light"), QStringLiteral("dark")})
              : Status(),
          oneOf(QStringLiteral("view"), options.view,
                {QStringLiteral("overview"), QStringLiteral("charts"), QStringLiteral("history"),
                 QStringLiteral("sagas"), QStringLiteral("suspense"), QStringLiteral("outbox"),
                 QStringLiteral("approvals"), QStringLiteral("audit"), QStringLiteral("recon"),
                 QStringLiteral("connect")})})
        if (!checked)
            return checked.error();
    if (parser.isSet(QStringLiteral("lang")))
        settings.setLanguage(language);
    if (parser.isSet(QStringLiteral("theme")))
        settings.setTheme(theme);
    options.screenshot = parser.value(QStringLiteral("screenshot"));
    options.minimumWaitMs = parser.value(QStringLiteral("wait")).toLongLong() * 1000;
    options.demo = parser.isSet(QStringLiteral("demo"));
    options.demoDirectory = parser.value(QStringLiteral("dir"));
    options.demoChannel = parser.value(QStringLiteral("demo-channel"));
    if (options.demoChannel.isEmpty())
        options.demoChannel = QStringLiteral("sim");
    if (!QStringList{QStringLiteral("sim"), QStringLiteral("alipay"), QStringLiteral("wechatpay")}
             .contains(options.demoChannel))
        return fieldError(QStringLiteral("demo-channel"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("--demo-channel must be sim, alipay or wechatpay"));
    Result<std::optional<ConnectionSettings>> database =
        dsnOption(parser, QStringLiteral("db"), qEnvironmentVariable("KEEL_DB"));
    if (!database)
        return database.error();
    options.database = *database;
    Result<std::optional<ConnectionSettings>> replica =
        dsnOption(parser, QStringLiteral("replica"), {});
    if (!replica)
        return replica.error();
    options.replica = *replica;
    return options;
}

} // namespace keel
