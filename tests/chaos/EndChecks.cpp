#include "EndChecks.h"

#include "ChaosWorld.h"
#include "HaFormation.h"
#include "KeelService.h"

#include "core/db/LibpqConnection.h"
#include "core/money/Currency.h"
#include "core/net/HttpClient.h"
#include "core/ops/AuditChain.h"
#include "core/recon/ChannelContract.h"
#include "core/recon/ReconRun.h"
#include "core/recon/StatementStore.h"
#include "core/reference/CurrencyStore.h"
#include "core/statement/StatementReader.h"
#include "devkit/sim/SimStatement.h"

#include <QCryptographicHash>
#include <QDirIterator>
#include <QFile>

namespace keel::chaos {

// Exactly one writable node, the one the monitor calls primary, and the one
// the checks read: otherwise what they found proves nothing. Each node's
// charge count is printed so a lost write can be told from a split brain.
void checkFormation(test::HaFormation &formation, LibpqConnection &checked, QTextStream &out,
                    Verdict &verdict)
{
    const int primary = formation.primaryPort();
    const Result<QString> readPort = checked.scalar("SELECT inet_server_port()");
    int writable = 0;
    for (const test::HaFormation::Node &node : formation.nodes()) {
        QString charges = QStringLiteral("-");
        if (node.reachable)
            if (auto direct = LibpqConnection::open(
                    formation.nodeSettings(node.port, QStringLiteral("keel"))))
                if (Result<QString> count = direct->scalar("SELECT count(*) FROM keel.charges"))
                    charges = *count;
        out << "  node " << node.name << " port " << node.port << ": " << node.reportedState
            << " (goal " << node.goalState << "), keeper "
            << (node.keeperRunning ? "running" : "exited") << ", "
            << (node.reachable ? (node.writable ? "writable" : "in recovery") : "unreachable")
            << ", charges " << charges << Qt::endl;
        writable += node.writable ? 1 : 0;
        if (node.writable && node.port != primary)
            verdict.violation(
                QStringLiteral("node %1 accepts writes but the HA engine's primary is "
                               "on port %2")
                    .arg(node.name)
                    .arg(primary));
    }
    if (!formation.healthy())
        verdict.violation(QStringLiteral("the formation did not come back to a primary and a "
                                         "secondary after the load"));
    if (writable != 1)
        verdict.violation(QStringLiteral("%1 writable nodes at the end (split brain or no primary)")
                              .arg(writable));
    if (!readPort || readPort->toInt() != primary)
        verdict.violation(QStringLiteral("the checks read port %1, the HA engine's primary is %2")
                              .arg(readPort ? *readPort : QStringLiteral("?"))
                              .arg(primary));
}

// No secret the run handed out appears in any log or in /metrics.
void checkRepairs(LibpqConnection &checked, Verdict &verdict)
{
    struct Rule {
        const char *sql;
        const char *violation;
    };
    static const Rule rules[] = {
        {"SELECT s.public_id FROM keel.sagas s WHERE s.status = 'parked' AND NOT EXISTS (SELECT 1 "
         "FROM keel.suspense_cases c WHERE c.saga_id = s.id AND c.status IN ('open', "
         "'in_review'))",
         "saga %1 is parked but none of its cases is open: nothing holds its money"},
        {"SELECT s.public_id FROM keel.sagas s WHERE s.status = 'resolved' AND EXISTS (SELECT 1 "
         "FROM keel.suspense_cases c WHERE c.saga_id = s.id AND c.status IN ('open', "
         "'in_review'))",
         "saga %1 is resolved but still has an open case"},
        {"SELECT id::text FROM keel.operator_actions WHERE status = 'queued'",
         "guarded action #%1 is still queued after the recovery"},
        {"SELECT a.id::text FROM keel.operator_actions a WHERE a.status = 'executed' AND (SELECT "
         "count(*) FROM keel.audit_log l WHERE l.action = 'execute' AND l.object_type = "
         "'operator_action' AND l.object_id = a.id::text) <> 1",
         "guarded action #%1 is executed but not in the audit chain exactly once"},
    };
    for (const Rule &rule : rules) {
        Result<PgRows> rows = checked.query(rule.sql);
        if (!rows)
            return verdict.violation(QStringLiteral("repairs unreadable: ") + rows.error().message);
        for (int i = 0; i < rows->size(); ++i)
            verdict.violation(QString::fromLatin1(rule.violation).arg(rows->text(i, 0)));
    }
    Result<AuditChainReport> chain = AuditChain(checked).verify();
    if (!chain)
        verdict.violation(QStringLiteral("audit chain unreadable: ") + chain.error().message);
    else if (!chain->intact())
        verdict.violation(
            QStringLiteral("the audit chain is broken at seq %1").arg(chain->firstBreak->seq));
    Result<PgRows> executed = checked.query(
        "SELECT a.kind || ' ' || coalesce(r ->> 'outcome', a.status), count(*) "
        "FROM keel.operator_actions a LEFT JOIN LATERAL jsonb_array_elements(a.after) r ON true "
        "GROUP BY 1");
    if (executed)
        for (int i = 0; i < executed->size(); ++i)
            verdict.counts[QStringLiteral("actions: ") + executed->text(i, 0)] =
                executed->toInt64(i, 1);
}

namespace {

// The simulated channel's contract in the chaos runs: 0.6 % a payment.
constexpr qint64 ContractedFeePpm = 6000;

StatementFormat channelLayout(const QString &channel)
{
    if (channel == QLatin1String("alipay"))
        return StatementFormat::Alipay;
    if (channel == QLatin1String("wechatpay"))
        return StatementFormat::WechatPay;
    return StatementFormat::Csv;
}

Status reconcileDay(LibpqConnection &checked, const QString &channel, const QString &zone,
                    const QDate &day, const CurrencyTable &currencies, Verdict &verdict)
{
    // Each channel's day in the layout the channel itself writes: the Alipay
    // and WeChat Pay runs read their bills as a merchant downloads them.
    StatementLayout layout;
    layout.dayZone = zone;
    layout.format = channelLayout(channel);
    Result<QByteArray> statement = simulatorStatement(checked, day, ContractedFeePpm, {}, layout);
    if (!statement)
        return statement.error();
    // WeChat Pay's download API answers the bill's SHA1 beside it.
    const QString sha1 =
        layout.format == StatementFormat::WechatPay
            ? QString::fromLatin1(
                  QCryptographicHash::hash(*statement, QCryptographicHash::Sha1).toHex())
            : QString();
    ++verdict.counts[QStringLiteral("reconciled: statements read as ") +
                     statementFormatName(layout.format)];
    Result<ImportedStatement> stored =
        importStatement(checked, channel, {layout.format, *statement, sha1}, currencies);
    if (!stored)
        return stored.error();
    Result<ReconReport> report = runReconciliation(checked, channel, day);
    if (!report)
        return report.error();
    verdict.counts[QStringLiteral("reconciled: statement lines")] += stored->lines;
    verdict.counts[QStringLiteral("reconciled: matched")] += report->matched;
    for (const StoredBreak &found : std::as_const(report->breaks))
        verdict.violation(QStringLiteral("reconciliation of %1: %2 %3 %4, the channel %5, keel %6")
                              .arg(day.toString(Qt::ISODate), breakClassName(found.found.kind),
                                   lineKindName(found.found.lineKind), found.found.reference)
                              .arg(found.found.channelAmount)
                              .arg(found.found.keelAmount),
                          found.found.reference.toUtf8());
    return {};
}

// Every run of the channel, the days reopened by later ones among them, is
// recomputed from what it read, as `keel recon verify` does: a run the
// faults made read one thing and record another would not hold.
void verifyRuns(LibpqConnection &checked, const QString &channel, Verdict &verdict)
{
    Result<PgRows> runs = checked.query(
        "SELECT id, business_date::text FROM keel.recon_runs WHERE channel = $1 ORDER BY id",
        {channel.toUtf8()});
    if (!runs)
        return verdict.violation(QStringLiteral("reconciliation runs unreadable: ") +
                                 runs.error().message);
    for (int i = 0; i < runs->size(); ++i) {
        Result<RunCheck> check = recomputeRun(checked, runs->toInt64(i, 0));
        if (!check)
            verdict.violation(QStringLiteral("run %1 could not be verified: %2")
                                  .arg(runs->text(i, 0), check.error().message));
        else if (!check->holds() || check->basis != RunCheck::Basis::AsRead)
            verdict.violation(QStringLiteral("run %1 of %2 does not verify on what it read")
                                  .arg(runs->text(i, 0), runs->text(i, 1)));
        else
            ++verdict.counts[QStringLiteral("reconciled: runs verified")];
    }
}

} // namespace

void checkReconciliation(LibpqConnection &checked, Verdict &verdict, const QString &channel)
{
    if (Status contracted = setContractedFeeRate(checked, channel, ContractedFeePpm); !contracted)
        return verdict.violation(QStringLiteral("reconciliation: cannot record the fee rate: ") +
                                 contracted.error().message);
    Result<CurrencyTable> currencies = loadCurrencies(checked);
    Result<QString> zone = channelTimeZone(checked, channel);
    if (!zone)
        return verdict.violation(QStringLiteral("reconciliation: ") + zone.error().message);
    Result<PgRows> days =
        checked.query("SELECT DISTINCT (created_at AT TIME ZONE $1)::date::text FROM "
                      "keel.sim_channel_operations "
                      "UNION SELECT DISTINCT (created_at AT TIME ZONE $1)::date::text "
                      "FROM keel.ledger_transactions ORDER BY 1",
                      {zone->toUtf8()});
    if (!currencies || !days)
        return verdict.violation(QStringLiteral("reconciliation unreadable: ") +
                                 (currencies ? days.error() : currencies.error()).message);
    for (int i = 0; i < days->size(); ++i)
        if (Status done = reconcileDay(checked, channel, *zone,
                                       QDate::fromString(days->text(i, 0), Qt::ISODate),
                                       *currencies, verdict);
            !done)
            verdict.violation(QStringLiteral("reconciliation of %1 failed: %2")
                                  .arg(days->text(i, 0), done.error().message));
    verifyRuns(checked, channel, verdict);
}

void scanForSecrets(const QString &directory, ChaosWorld &world, Verdict &verdict)
{
    QList<std::pair<QString, QByteArray>> artefacts;
    QDirIterator files(directory, {QStringLiteral("*.log"), QStringLiteral("*.log.*")}, QDir::Files,
                       QDirIterator::Subdirectories);
    while (files.hasNext()) {
        QFile file(files.next());
        if (file.open(QIODevice::ReadOnly))
            artefacts.append({file.fileName(), file.readAll()});
    }
    for (const QString &name : world.processNames())
        if (const QByteArray line = world.process(name)->commandLine(); !line.isEmpty())
            artefacts.append({QStringLiteral("the command line of ") + name, line});
    for (const QString &url : world.gatewayUrls()) {
        QString host;
        int port = 0;
        HttpClient::parseUrl(url, &host, &port);
        HttpClient http(host, port, 5000);
        artefacts.append({url + QStringLiteral("/metrics"), http.request("GET", "/metrics").body});
    }
    qint64 bytes = 0;
    for (const auto &[name, content] : artefacts) {
        bytes += content.size();
        for (const QByteArray &secret : world.secrets())
            if (!secret.isEmpty() && content.contains(secret))
                verdict.violation(QStringLiteral("a secret (%1...) appears in %2")
                                      .arg(QString::fromLatin1(secret.left(6)), name));
    }
    verdict.counts[QStringLiteral("artefacts scanned for secrets")] = artefacts.size();
    verdict.counts[QStringLiteral("artefact bytes scanned")] = bytes;
}

} // namespace keel::chaos
