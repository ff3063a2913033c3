// The reconciliation benchmark: one business day of N captured charges and a
// statement of N lines (a few of them broken), imported and reconciled by
// `keel recon import` and `keel recon run`, beside a reference that does the
// same matching in its best form: COPY of the same file into a bare table and
// one SQL join classifying every line and posting. Prints both times, their
// ratio (reference / keel) and keel's peak memory. Then it times the queries
// of the console's Reconciliation view at that size, with a further day of
// open breaks to page through.
//   packaging/run-recon-bench [--lines 1000000]

#include "BenchSupport.h"

#include "core/db/LibpqConnection.h"
#include "core/db/QtSqlConnections.h"
#include "core/read/ReconQuery.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QThread>
#include <QTimeZone>

#include <sys/resource.h>

#include <algorithm>
#include <vector>

using namespace keel;
using namespace keel::bench;

namespace {

constexpr char Day[] = "2026-11-30";
constexpr int Broken = 10; // lines dropped, and lines with a cent more

// N charges captured through the simulated channel within the day, each
// with the id the channel answered with and its capture postings, written in bulk (the triggers'
// per-row checks are what the gateway pays, not this benchmark).
void seedBooks(LibpqConnection &session, qint64 merchantId, int lines)
{
    const QByteArray merchant = QByteArray::number(merchantId);
    const QByteArray count = QByteArray::number(lines);
    const QByteArrayList steps{
        "SET session_replication_role = replica",
        "INSERT INTO keel.charges (public_id, merchant_id, out_trade_no, amount, currency, source, "
        "  capture, amount_captured, request_hash, created_at, channel, channel_reference) "
        "SELECT 'ch_bench' || lpad(g::text, 12, '0'), " +
            merchant +
            ", 'o' || g, 100 + g % 9000, "
            "  'USD', 'tok_visa', true, 100 + g % 9000, '\\x00', '" +
            Day +
            "'::timestamptz + "
            "  g * interval '80 ms', 'sim', 'sim_' || g FROM generate_series(1, " +
            count + ") g",
        "INSERT INTO keel.ledger_transactions (kind, charge_id, created_at) "
        "SELECT 'capture', id, created_at FROM keel.charges",
        "INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount, "
        "created_at) "
        "SELECT t.id, a.id, 'USD', CASE WHEN a.code LIKE 'channel_clearing:%' THEN c.amount "
        "  ELSE -c.amount END, t.created_at FROM keel.ledger_transactions t "
        "JOIN keel.charges c ON c.id = t.charge_id JOIN keel.ledger_accounts a "
        "  ON a.code IN ('channel_clearing:USD', 'merchant_payable:" +
            merchant + ":USD')",
        "RESET session_replication_role",
        "ANALYZE"};
    for (const QByteArray &step : steps)
        if (Status done = session.exec(step); !done)
            die(done.error().message);
}

// The channel's statement of the day in keel's CSV form: every capture but
// the first `Broken`, and `Broken` more with a cent added. `byChannelId`
// names each line by the channel's own id alone, as a channel does that
// never carries keel's reference.
QString writeStatement(LibpqConnection &session, const QString &directory, bool byChannelId)
{
    Result<PgRows> rows = session.query(
        "SELECT public_id, channel_reference, amount, "
        "  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') "
        "FROM keel.charges ORDER BY id");
    if (!rows)
        die(rows.error().message);
    QByteArray text = "reference,channel_reference,type,amount,currency,fee,occurred_at\n";
    text.reserve(rows->size() * 80);
    for (int i = Broken; i < rows->size(); ++i) {
        const qint64 amount = rows->toInt64(i, 2) + (i < 2 * Broken ? 1 : 0);
        text += rows->value(i, byChannelId ? 1 : 0) + ',' + rows->value(i, 1) + ",payment," +
                QByteArray::number(amount / 100) + '.' +
                QByteArray::number(amount % 100).rightJustified(2, '0') + ",USD,0," +
                rows->value(i, 3) + '\n';
    }
    const QString path = directory + QStringLiteral("/statement.csv");
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
        die(QStringLiteral("cannot write %1").arg(path));
    return path;
}

// The reference: the same file into a table, then one join that finds the
// same breaks. `constraints` follow the table's columns; `indexes` are made
// before the COPY, as keel's are there before an import.
struct ReferenceTable {
    QByteArray name;
    QByteArray constraints;
    QByteArrayList indexes;
};

std::pair<double, QString> reference(LibpqConnection &session, const QString &path,
                                     const ReferenceTable &table, bool byChannelId)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        die(QStringLiteral("cannot read %1").arg(path));
    const QByteArray csv = file.readAll();
    QElapsedTimer timer;
    timer.start();
    if (Status made = session.exec("CREATE TABLE " + table.name +
                                   " (reference text, channel_reference text, kind text, "
                                   "amount numeric, currency char(3), fee numeric, "
                                   "occurred_at timestamptz" +
                                   table.constraints + ")");
        !made)
        die(made.error().message);
    for (const QByteArray &index : table.indexes)
        if (Status made = session.exec("CREATE INDEX ON " + table.name + ' ' + index); !made)
            die(made.error().message);
    if (Status copied = session.copyIn("COPY " + table.name +
                                           " (reference, channel_reference, kind, amount, "
                                           "currency, fee, occurred_at) "
                                           "FROM STDIN (FORMAT csv, HEADER)",
                                       csv);
        !copied)
        die(copied.error().message);
    Result<PgRows> breaks = session.query(
        "SELECT count(*) FILTER (WHERE l.reference IS NULL), "
        "       count(*) FILTER (WHERE k.public_id IS NULL), "
        "       count(*) FILTER (WHERE (l.amount * 100)::bigint <> k.amount) "
        "FROM (SELECT c.public_id, c.channel_reference, sum(e.amount) AS amount "
        "      FROM keel.ledger_transactions t "
        "      JOIN keel.charges c ON c.id = t.charge_id "
        "      JOIN keel.ledger_entries e ON e.transaction_id = t.id "
        "      JOIN keel.ledger_accounts a ON a.id = e.account_id "
        "        AND a.code LIKE 'channel_clearing:%' "
        "      WHERE t.kind = 'capture' AND t.created_at >= $1::date "
        "        AND t.created_at < $1::date + 1 GROUP BY c.public_id, c.channel_reference) k "
        "FULL JOIN " +
            table.name +
            (byChannelId ? " l ON l.channel_reference = k.channel_reference"
                         : " l ON l.reference = k.public_id"),
        {QByteArray(Day)});
    if (!breaks)
        die(breaks.error().message);
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    return {seconds, QStringLiteral("missing_at_channel=%1 missing_at_keel=%2 amount_mismatch=%3")
                         .arg(breaks->text(0, 0), breaks->text(0, 1), breaks->text(0, 2))};
}

// CPU seconds the finished keel processes spent, user and system.
double childCpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_CHILDREN, &usage);
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

double timedKeel(const QStringList &arguments, QString *out)
{
    const double cpuBefore = childCpuSeconds();
    QProcess process;
    QElapsedTimer timer;
    timer.start();
    process.start(QStringLiteral(KEEL_BINARY), arguments);
    if (!process.waitForFinished(-1) || process.exitCode() != 0)
        die(QStringLiteral("keel %1 failed: %2")
                .arg(arguments.constFirst() + u' ' + arguments.at(1),
                     QString::fromUtf8(process.readAllStandardError())));
    *out = QString::fromUtf8(process.readAllStandardOutput()).trimmed() +
           QStringLiteral("; keel's own CPU %1 s").arg(childCpuSeconds() - cpuBefore, 0, 'f', 1);
    return double(timer.nsecsElapsed()) / 1e9;
}

// A statement of `count` payments keel never made, all today: a day of as
// many open breaks (today's lag has not passed, so no case opens).
QString writeUnknownPayments(const QString &directory, int count)
{
    const QDateTime midnight(QDate::currentDate(), QTime(0, 0), QTimeZone::utc());
    QByteArray text = "reference,channel_reference,type,amount,currency,fee,occurred_at\n";
    text.reserve(qsizetype(count) * 80);
    for (int i = 0; i < count; ++i)
        text += "ch_unknown" + QByteArray::number(i).rightJustified(10, '0') + ",sx_" +
                QByteArray::number(i) + ",payment,1.00,USD,0," +
                midnight.addMSecs(i).toString(Qt::ISODateWithMs).toLatin1() + '\n';
    const QString path = directory + QStringLiteral("/unknown.csv");
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
        die(QStringLiteral("cannot write %1").arg(path));
    return path;
}

template <typename Load>
double medianMs(Load &&load)
{
    std::vector<double> times;
    for (int i = 0; i < 5; ++i) {
        QElapsedTimer timer;
        timer.start();
        load();
        times.push_back(double(timer.nsecsElapsed()) / 1e6);
    }
    std::sort(times.begin(), times.end());
    return times[2];
}

template <typename T>
const T &orDie(const Result<T> &result)
{
    if (!result)
        die(result.error().message);
    return *result;
}

// What the Reconciliation view asks for on a refresh, and a page of open
// breaks at the start and deep into them.
void measureConsoleView(const ConnectionSettings &db, int openBreaks)
{
    auto connection = QtSqlConnections::connect(db, QStringLiteral("recon-bench-console"));
    if (!connection)
        die(connection.error().message);
    QSqlDatabase console = *connection;
    constexpr int Page = 200;
    const double runs = medianMs([&] { (void)orDie(ReconQuery::runs(console, 200)); });
    const double statements = medianMs([&] { (void)orDie(ReconQuery::statements(console, 200)); });
    const double ages = medianMs([&] { (void)orDie(ReconQuery::ages(console)); });
    const QList<ReconBreakRow> first = orDie(ReconQuery::openBreaks(console, Page));
    const double firstPage = medianMs([&] { (void)orDie(ReconQuery::openBreaks(console, Page)); });
    std::optional<ReconBreakRow> after;
    int walked = 0;
    while (walked + 1000 + 2 * Page <= openBreaks) {
        const QList<ReconBreakRow> rows = orDie(ReconQuery::openBreaks(console, 1000, after));
        if (rows.isEmpty())
            break;
        after = rows.constLast();
        walked += int(rows.size());
    }
    const double deepPage = medianMs([&] {
        if (orDie(ReconQuery::openBreaks(console, Page, after)).size() != Page)
            die(QStringLiteral("a page of breaks deep in the list did not come back full"));
    });
    const double detail =
        medianMs([&] { (void)orDie(ReconQuery::detail(console, first.constLast())); });
    std::printf("  console's Reconciliation view (%d open breaks), medians of 5: runs %.1f ms, "
                "statements %.1f ms, breaks by age %.1f ms, a break's two sides %.1f ms\n",
                openBreaks, runs, statements, ages, detail);
    std::printf("  open breaks, a page of %d: first %.1f ms, after %d %.1f ms, ratio %.2f\n", Page,
                firstPage, walked, deepPage, deepPage / firstPage);
}

struct Timed {
    double seconds = 0;
    QString said; // what keel printed
};

Timed keelImport(const ConnectionSettings &db, const QString &path)
{
    Timed timed;
    timed.seconds =
        timedKeel({QStringLiteral("recon"), QStringLiteral("import"), QStringLiteral("--db"),
                   db.conninfo(), QStringLiteral("--channel"), QStringLiteral("sim"),
                   QStringLiteral("--format"), QStringLiteral("csv"), path},
                  &timed.said);
    return timed;
}

Timed keelRun(const ConnectionSettings &db, const QString &date)
{
    Timed timed;
    timed.seconds = timedKeel({QStringLiteral("recon"), QStringLiteral("run"),
                               QStringLiteral("--db"), db.conninfo(), QStringLiteral("--channel"),
                               QStringLiteral("sim"), QStringLiteral("--date"), date},
                              &timed.said);
    return timed;
}

struct DayFigures {
    std::pair<double, QString> reference; // seconds, the breaks it found
    std::pair<double, QString> indexed;   // the same, storing the lines as keel must
    Timed import;
    Timed run;
};

// The two references and keel on the same statement, each timed part
// starting with no dirty buffers, so that none pays for a checkpoint of what
// an earlier one wrote (the seeding writes gigabytes).
DayFigures measureDay(LibpqConnection &session, const ConnectionSettings &db, const QString &path,
                      bool byChannelId)
{
    const auto settled = [&session] {
        if (Status done = session.exec("CHECKPOINT"); !done)
            die(done.error().message);
    };
    DayFigures figures;
    settled();
    figures.reference = reference(session, path, {"ref_lines", {}, {}}, byChannelId);
    settled();
    // A line reported twice is refused, and a reference and a day are found
    // without a scan.
    figures.indexed = reference(session, path,
                                {"ref_stored_lines",
                                 ", line_no serial PRIMARY KEY, UNIQUE (kind, channel_reference)",
                                 {"(reference)", "(occurred_at)"}},
                                byChannelId);
    settled();
    figures.import = keelImport(db, path);
    settled();
    figures.run = keelRun(db, QString::fromLatin1(Day));
    return figures;
}

void printFigures(int lines, const DayFigures &figures)
{
    rusage usage{};
    getrusage(RUSAGE_CHILDREN, &usage);
    const double keelSeconds = figures.import.seconds + figures.run.seconds;
    std::printf("recon bench: %d charges, %d statement lines (%d dropped, %d a cent off)\n", lines,
                lines - Broken, Broken, Broken);
    std::printf("  reference (COPY + one SQL join): %.1f s; %s\n", figures.reference.first,
                qPrintable(figures.reference.second));
    std::printf("  keel recon import: %.1f s (%s)\n", figures.import.seconds,
                qPrintable(figures.import.said));
    std::printf("  keel recon run:    %.1f s (%s)\n", figures.run.seconds,
                qPrintable(figures.run.said));
    std::printf("  reference storing the lines with keel's constraints and indexes: %.1f s; %s\n",
                figures.indexed.first, qPrintable(figures.indexed.second));
    std::printf("  keel total %.1f s, ratio reference/keel %.2f (with keel's indexes %.2f), peak "
                "memory of a keel process %.0f MB\n",
                keelSeconds, figures.reference.first / keelSeconds,
                figures.indexed.first / keelSeconds, double(usage.ru_maxrss) / 1024.0);
}

// Keeps the server up for a person to rerun keel against the same day.
void holdWhileExists(const QString &flag, const ConnectionSettings &db)
{
    if (!QFile::exists(flag))
        die(QStringLiteral("--hold %1: make the file first; the bench holds until it is gone")
                .arg(flag));
    // Where to connect, never a secret: the server trusts its own socket.
    std::printf("held: host=%s port=%s user=%s dbname=%s\n  remove %s to go on\n",
                qPrintable(db.value(QStringLiteral("host"))),
                qPrintable(db.value(QStringLiteral("port"))),
                qPrintable(db.value(QStringLiteral("user"))),
                qPrintable(db.value(QStringLiteral("dbname"))), qPrintable(flag));
    std::fflush(stdout);
    while (QFile::exists(flag))
        QThread::sleep(1);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("lines"), QStringLiteral("Charges and statement lines."),
                      QStringLiteral("N")});
    parser.addOption({QStringLiteral("hold"),
                      QStringLiteral("After the day's figures, print where the server is and "
                                     "keep it until FILE, made before, is gone (to profile "
                                     "reruns; the console's figures then see what they did)."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("by-channel-id"),
                      QStringLiteral("The statement names payments by the channel's ids alone.")});
    parser.process(app);
    const int lines = positiveOption(parser, "lines", 1000000);
    const bool byChannelId = parser.isSet(QStringLiteral("by-channel-id"));
    auto server = startBenchServer();
    const IssuedMerchant merchant = prepareDatabase(*server->cluster, QStringLiteral("bench"));
    const ConnectionSettings db = server->cluster->settings(QStringLiteral("bench"));
    auto session = LibpqConnection::open(db);
    if (!session)
        die(session.error().message);
    QTemporaryDir directory(QStringLiteral("/tmp/keel-recon-bench-XXXXXX"));
    seedBooks(*session, merchant.merchant.id, lines);
    const QString path = writeStatement(*session, directory.path(), byChannelId);
    printFigures(lines, measureDay(*session, db, path, byChannelId));
    auditOrDie(db, "after reconciliation");
    if (parser.isSet(QStringLiteral("hold")))
        holdWhileExists(parser.value(QStringLiteral("hold")), db);

    // A further day of open breaks, for the console to page through.
    const int unknown = std::max(lines / 5, 2000);
    keelImport(db, writeUnknownPayments(directory.path(), unknown));
    keelRun(db, QDate::currentDate().toString(Qt::ISODate));
    measureConsoleView(db, unknown);
    return 0;
}
