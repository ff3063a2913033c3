#include "BenchSupport.h"

#include "core/db/LibpqConnection.h"
#include "core/db/MigrationSource.h"
#include "core/db/Migrator.h"
#include "core/db/QtSqlConnections.h"
#include "core/ledger/Ledger.h"
#include "devkit/servers/ServerBinaries.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSysInfo>
#include <QTemporaryDir>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <sys/prctl.h>

namespace keel::bench {

void die(const QString &message)
{
    std::fprintf(stderr, "%s: %s\n", qPrintable(QCoreApplication::applicationName()),
                 qPrintable(message));
    std::exit(1);
}

double percentile(std::vector<qint64> &micros, double p)
{
    if (micros.empty())
        return 0;
    std::sort(micros.begin(), micros.end());
    const size_t index = std::min(micros.size() - 1, size_t(p * double(micros.size())));
    return double(micros[index]) / 1000.0;
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values.empty() ? 0 : values[values.size() / 2];
}

BenchServer::~BenchServer()
{
    if (cluster)
        (void)cluster->stop();
    if (!dataDirectory.isEmpty())
        QDir(dataDirectory).removeRecursively();
}

std::unique_ptr<BenchServer> startBenchServer()
{
    QByteArray pattern = "/tmp/keel-bench-XXXXXX";
    if (!::mkdtemp(pattern.data()))
        die(QStringLiteral("mkdtemp failed"));
    auto server = std::make_unique<BenchServer>();
    server->dataDirectory = QString::fromLocal8Bit(pattern);
    auto cluster = EmbeddedCluster::create({server->dataDirectory, 0, true});
    if (!cluster)
        die(cluster.error().message);
    server->cluster = std::move(cluster).value();
    if (auto initialized = server->cluster->initialize(); !initialized)
        die(initialized.error().message);
    if (auto started = server->cluster->start(); !started)
        die(started.error().message);
    return server;
}

Run pgbench(const ConnectionSettings &db, const QString &script, int clients, int seconds,
            const QStringList &variables)
{
    auto binaries = ServerBinaries::locate();
    if (!binaries)
        die(binaries.error().message);
    const QString program = binaries->program(QStringLiteral("pgbench"));
    QTemporaryDir logs;
    QStringList arguments{QStringLiteral("-n"),
                          QStringLiteral("-M"),
                          QStringLiteral("prepared"),
                          QStringLiteral("-c"),
                          QString::number(clients),
                          QStringLiteral("-j"),
                          QString::number(std::min(clients, 2)),
                          QStringLiteral("-T"),
                          QString::number(seconds),
                          QStringLiteral("-f"),
                          script,
                          QStringLiteral("-l"),
                          QStringLiteral("--log-prefix=") + logs.filePath(QStringLiteral("tx")),
                          QStringLiteral("-h"),
                          db.value(QStringLiteral("host")),
                          QStringLiteral("-p"),
                          db.value(QStringLiteral("port")),
                          QStringLiteral("-U"),
                          db.value(QStringLiteral("user")),
                          db.value(QStringLiteral("dbname"))};
    for (const QString &variable : variables)
        arguments << QStringLiteral("-D") << variable;
    QProcess process;
    process.start(program, arguments);
    if (!process.waitForFinished((seconds + 60) * 1000) || process.exitCode() != 0)
        die(QStringLiteral("pgbench failed: %1")
                .arg(QString::fromLocal8Bit(process.readAllStandardError())));
    const QString out = QString::fromLocal8Bit(process.readAllStandardOutput());
    static const QRegularExpression tps(QStringLiteral("tps = ([0-9.]+) \\(without initial"));
    static const QRegularExpression failed(
        QStringLiteral("number of failed transactions: ([0-9]+)"));
    const QRegularExpressionMatch rate = tps.match(out);
    const QRegularExpressionMatch failures = failed.match(out);
    if (!rate.hasMatch() || !failures.hasMatch())
        die(QStringLiteral("cannot read pgbench's output: %1").arg(out));
    if (failures.captured(1).toLongLong() > 0)
        die(QStringLiteral("pgbench had %1 failed transactions").arg(failures.captured(1)));
    Run run;
    run.perSecond = rate.captured(1).toDouble();
    std::vector<qint64> all;
    for (const QString &file : QDir(logs.path()).entryList(QDir::Files)) {
        QFile log(QDir(logs.path()).filePath(file));
        if (!log.open(QIODevice::ReadOnly))
            continue;
        while (!log.atEnd()) {
            const QList<QByteArray> fields = log.readLine().split(' ');
            if (fields.size() >= 3)
                all.push_back(fields.at(2).toLongLong());
        }
    }
    run.count = qint64(all.size());
    if (run.count == 0)
        die(QStringLiteral("pgbench logged no transactions"));
    run.p50Ms = percentile(all, 0.50);
    run.p99Ms = percentile(all, 0.99);
    return run;
}

IssuedMerchant prepareDatabase(EmbeddedCluster &cluster, const QString &name)
{
    if (auto made = cluster.ensureDatabase(name); !made)
        die(made.error().message);
    const ConnectionSettings db = cluster.settings(name);
    {
        auto connection = QtSqlConnections::connect(db, QStringLiteral("keel-bench"));
        if (!connection)
            die(connection.error().message);
        if (auto applied = Migrator(*connection, *MigrationSource::load()).migrate(); !applied)
            die(applied.error().message);
    }
    QtSqlConnections::closeThreadConnections();
    auto session = LibpqConnection::open(db);
    if (!session)
        die(session.error().message);
    auto merchant = MerchantStore(*session).create(QStringLiteral("Bench"), {});
    if (!merchant)
        die(merchant.error().message);
    if (auto ready = Ledger(*session).prepareAccounts(merchant->merchant.id, QStringLiteral("USD"));
        !ready)
        die(ready.error().message);
    return *merchant;
}

QString scalarOf(LibpqConnection &session, const QByteArray &sql, const QByteArrayList &params)
{
    auto rows = session.query(sql, params);
    if (!rows || rows->size() != 1 || rows->isNull(0, 0))
        die(QStringLiteral("bench query found nothing: %1").arg(QString::fromLatin1(sql)));
    return rows->text(0, 0);
}

QString spawnKeel(QProcess &process, const QStringList &arguments, const QString &readyPrefix)
{
    process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
    process.start(QStringLiteral(KEEL_BINARY), arguments);
    while (process.waitForReadyRead(30000)) {
        while (process.canReadLine()) {
            const QString line = QString::fromLocal8Bit(process.readLine()).trimmed();
            if (line.startsWith(readyPrefix))
                return line.mid(readyPrefix.size());
        }
    }
    die(QStringLiteral("keel %1 did not start").arg(arguments.value(0)));
}

void auditOrDie(const ConnectionSettings &db, const char *what)
{
    auto session = LibpqConnection::open(db);
    if (!session)
        die(session.error().message);
    auto audit = Ledger::audit(*session);
    if (!audit)
        die(audit.error().message);
    if (!audit->violations.isEmpty())
        die(QStringLiteral("%1's ledger does not add up: %2")
                .arg(QLatin1String(what), audit->violations.join(QStringLiteral("; "))));
    std::printf("%s ledger audited: %lld transactions balance\n", what,
                static_cast<long long>(audit->transactions));
}

QString fillReferenceScript(const QString &templatePath, LibpqConnection &keelSession,
                            const QList<std::pair<QString, QString>> &more,
                            const QString &directory)
{
    QFile source(templatePath);
    if (!source.open(QIODevice::ReadOnly))
        die(QStringLiteral("cannot read %1").arg(source.fileName()));
    QString script = QString::fromUtf8(source.readAll());
    const auto hex = [](const QString &text) {
        return QString::fromLatin1(text.toUtf8().toHex());
    };
    script.replace(QStringLiteral("@RESPONSE_BODY_HEX@"),
                   scalarOf(keelSession, "SELECT encode(response_body, 'hex') FROM "
                                         "keel.idempotency_keys WHERE status = 'done' LIMIT 1"));
    script.replace(
        QStringLiteral("@RESPONSE_HEADERS_HEX@"),
        hex(scalarOf(keelSession, "SELECT response_headers::text FROM "
                                  "keel.idempotency_keys WHERE status = 'done' LIMIT 1")));
    // keel names a key's holder host:pid; the same length, without a ':' for pgbench.
    QString holder = QSysInfo::machineHostName() + QStringLiteral("-") +
                     QString::number(QCoreApplication::applicationPid());
    script.replace(QStringLiteral("@LOCKED_BY@"), holder.replace(u':', u'-'));
    for (const auto &[placeholder, text] : more)
        script.replace(placeholder, hex(text));
    QFile target(QDir(directory).filePath(QFileInfo(templatePath).fileName()));
    if (!target.open(QIODevice::WriteOnly) || target.write(script.toUtf8()) < 0)
        die(QStringLiteral("cannot write %1").arg(target.fileName()));
    return target.fileName();
}

void addRoundOptions(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("seconds"),
                      QStringLiteral("Seconds per measurement (default 10)."),
                      QStringLiteral("S")});
    parser.addOption({QStringLiteral("rounds"),
                      QStringLiteral("Rounds; medians are reported (default 3)."),
                      QStringLiteral("N")});
}

int positiveOption(const QCommandLineParser &parser, const char *name, int fallback)
{
    const int value = parser.value(QString::fromLatin1(name)).toInt();
    return value > 0 ? value : fallback;
}

} // namespace keel::bench
