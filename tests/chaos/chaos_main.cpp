// keel-chaos: load and a seeded fault schedule against real keel processes on
// a real PostgreSQL and RabbitMQ, then the end checks (ChaosChecks.h).
// Usage: keel-chaos [--seed N] [--seconds N] [--clients N] [--failover] [--operators]
//                   [--patroni [--replica]] [--alipay | --wechatpay] [--broker-cluster]
//                   [--keep DIR]

#include "ChaosRun.h"
#include "ServiceLogToStderr.h"

#include "core/net/HttpClient.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QTemporaryDir>
#include <QTextStream>

#include <cstdio>

using namespace keel::chaos;

namespace {

// What keel-chaos takes on its command line.
void addOptions(QCommandLineParser &parser)
{
    parser.addOptions({
        {QStringLiteral("seed"), QStringLiteral("The fault plan's seed (default: from the clock)."),
         QStringLiteral("N")},
        {QStringLiteral("seconds"), QStringLiteral("Seconds of load under faults (default 90)."),
         QStringLiteral("N")},
        {QStringLiteral("clients"), QStringLiteral("Concurrent merchant clients (default 4)."),
         QStringLiteral("N")},
        {QStringLiteral("failover"),
         QStringLiteral("Run PostgreSQL as a pg_auto_failover formation (monitor, primary, "
                        "synchronous secondary) and fail the primary over instead of shutting "
                        "it down.")},
        {QStringLiteral("patroni"),
         QStringLiteral(
             "With --failover: the formation is Patroni on a three-member etcd (two "
             "PostgreSQL members, strict synchronous mode) instead of pg_auto_failover.")},
        {QStringLiteral("replica"),
         QStringLiteral("With --patroni: one more member, a read replica that never leads, "
                        "which an auditor's login reads as the console would while the faults "
                        "run (ReplicaWatch).")},
        {QStringLiteral("operators"),
         QStringLiteral("Two people at the console during the faults (a maker and a checker) "
                        "propose, approve, reject, let expire and execute guarded actions.")},
        {QStringLiteral("alipay"),
         QStringLiteral("The gateways and worker call the channel as Alipay (keel channel-sim "
                        "--protocol alipay): yuan sales, refunds, their queries and cancels.")},
        {QStringLiteral("wechatpay"),
         QStringLiteral("The gateways and worker call the channel as WeChat Pay API v3 (keel "
                        "channel-sim --protocol wechatpay): yuan sales, refunds, their queries "
                        "and reverses.")},
        {QStringLiteral("broker-cluster"),
         QStringLiteral(
             "Run RabbitMQ as a cluster of three nodes with the consumer's queue a "
             "quorum queue, and stop or kill one node at a time instead of the broker.")},
        {QStringLiteral("keep"),
         QStringLiteral("Keep the servers' directory and logs here instead of a temporary one."),
         QStringLiteral("DIR")},
    });
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    keel::test::sendServiceLogToStderr();
    // Its participants and merchant endpoint are plain HTTP on loopback; the
    // services it starts are told the same (--allow-http).
    keel::HttpClient::allowPlainHttp(true);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Runs keel under load and faults derived from a seed, then checks that "
                       "nothing was lost, duplicated or left in doubt."));
    parser.addHelpOption();
    addOptions(parser);
    parser.process(app);
    QTextStream out(stdout);
    RunOptions options;
    bool ok = true;
    options.seed = parser.isSet(QStringLiteral("seed"))
                       ? parser.value(QStringLiteral("seed")).toULongLong(&ok)
                       : quint64(QDateTime::currentMSecsSinceEpoch());
    const auto positive = [&](const char *name, int fallback, int most) {
        if (!parser.isSet(QLatin1String(name)))
            return fallback;
        bool valid = false;
        const int value = parser.value(QLatin1String(name)).toInt(&valid);
        ok = ok && valid && value > 0 && value <= most;
        return value;
    };
    options.seconds = positive("seconds", 90, 7 * 86400);
    options.clients = positive("clients", 4, 64);
    options.patroni = parser.isSet(QStringLiteral("patroni"));
    options.failover = parser.isSet(QStringLiteral("failover")) || options.patroni;
    options.operators = parser.isSet(QStringLiteral("operators"));
    options.brokerCluster = parser.isSet(QStringLiteral("broker-cluster"));
    options.replica = parser.isSet(QStringLiteral("replica"));
    if (parser.isSet(QStringLiteral("alipay")))
        options.protocol = ChannelProtocol::Alipay;
    if (parser.isSet(QStringLiteral("wechatpay")))
        options.protocol = ChannelProtocol::WechatPay;
    ok = ok &&
         !(parser.isSet(QStringLiteral("alipay")) && parser.isSet(QStringLiteral("wechatpay"))) &&
         (!options.replica || options.patroni);
    if (!ok) {
        out << "keel-chaos: --seed must be a whole number, --seconds and --clients positive, "
               "at most one of --alipay and --wechatpay, and --replica only with --patroni"
            << Qt::endl;
        return 2;
    }
    QTemporaryDir temporary;
    options.directory = parser.isSet(QStringLiteral("keep"))
                            ? QDir(parser.value(QStringLiteral("keep"))).absolutePath()
                            : temporary.path();
    if (parser.isSet(QStringLiteral("keep")))
        QDir().mkpath(options.directory);
    ChaosRun run(options, out);
    const int verdict = run.run();
    // A failing run's logs and data are the evidence: never delete them.
    if (verdict != 0 && !parser.isSet(QStringLiteral("keep"))) {
        temporary.setAutoRemove(false);
        out << "kept for inspection: " << options.directory << Qt::endl;
    }
    return verdict;
}
