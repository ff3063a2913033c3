#include "Command.h"

#include "core/db/LibpqConnection.h"
#include "core/json/JsonWriter.h"
#include "core/money/Currency.h"
#include "core/recon/ChannelContract.h"
#include "core/recon/ReconRun.h"
#include "core/recon/StatementStore.h"
#include "core/reference/CurrencyStore.h"
#include "core/statement/StatementReader.h"

#include <QCommandLineParser>
#include <QFile>

namespace keel::cli {
namespace {

// A refused statement's one line starts with the check that refused it
// (statement_field, statement_overlap, ...), for a script to act on.
Error namingTheCheck(Error error)
{
    if (error.code.startsWith(QLatin1String("statement_")))
        error.message = error.code + QStringLiteral(": ") + error.message;
    return error;
}

// A day's statement of the largest merchant stays well below this.
constexpr qint64 StatementFileLimit = qint64(1) << 30;

QString option(const QCommandLineParser &parser, const char *name)
{
    return parser.value(QString::fromLatin1(name));
}

Error usage(const QString &message)
{
    return makeError(ErrorKind::Usage, message);
}

class ReconCommand final : public Command {
public:
    QString name() const override { return QStringLiteral("recon"); }
    QString summary() const override
    {
        return QStringLiteral(
            "Reconcile a channel's statements with keel's books (对账): \"keel recon import "
            "--channel NAME --format csv|wechatpay|alipay|stripe FILE [--sha1 HEX]\" stores a "
            "statement "
            "whole "
            "or refuses it (exit 2 names the check); \"keel recon run --channel NAME --date "
            "YYYY-MM-DD [--json]\" matches one business day and keeps its breaks; \"keel recon "
            "verify --run ID\" recomputes a run's result hash; \"keel recon fee-rate --channel "
            "NAME --ppm N\" records the contracted fee.");
    }
    QStringList actions() const override
    {
        return {QStringLiteral("import"), QStringLiteral("run"), QStringLiteral("verify"),
                QStringLiteral("fee-rate")};
    }

    int argumentsAfter(const QString &action) const override
    {
        return action == QLatin1String("import") ? 1 : 0;
    }

    void addOptions(QCommandLineParser &parser) const override
    {
        parser.addPositionalArgument(QStringLiteral("action"),
                                     QStringLiteral("import, run, verify or fee-rate."));
        parser.addPositionalArgument(QStringLiteral("file"),
                                     QStringLiteral("import: the statement file."), {});
        addDatabaseOption(parser);
        parser.addOption({QStringLiteral("channel"),
                          QStringLiteral("The channel the statement or day belongs to (sim, "
                                         "alipay, wechatpay, stripe)."),
                          QStringLiteral("NAME")});
        parser.addOption(
            {QStringLiteral("format"),
             QStringLiteral("import: csv (keel's normalised form), wechatpay (the v3 "
                            "trade bill, plain or gzip), alipay (the trade bill's ZIP) or "
                            "stripe (the itemized payout reconciliation report's CSV)."),
             QStringLiteral("FORMAT")});
        parser.addOption({QStringLiteral("sha1"),
                          QStringLiteral("import: the SHA1 the channel's download API returned; "
                                         "checked before anything is read."),
                          QStringLiteral("HEX")});
        parser.addOption({QStringLiteral("date"),
                          QStringLiteral("run: the business day, in the channel's time zone."),
                          QStringLiteral("YYYY-MM-DD")});
        parser.addOption(
            {QStringLiteral("json"), QStringLiteral("run: print the result as JSON.")});
        parser.addOption({QStringLiteral("ppm"),
                          QStringLiteral("fee-rate: the contracted fee, in millionths of a "
                                         "payment (6000 is 0.6 %)."),
                          QStringLiteral("N")});
        parser.addOption({QStringLiteral("run"), QStringLiteral("verify: the run to recompute."),
                          QStringLiteral("ID")});
    }

    int run(const QCommandLineParser &parser) override
    {
        const QString action = parser.positionalArguments().constFirst();
        if (action != QLatin1String("verify") && option(parser, "channel").isEmpty())
            return fail(name(), usage(QStringLiteral("--channel is required")));
        if (action == QLatin1String("import"))
            return importStatement(parser);
        if (action == QLatin1String("run"))
            return runDay(parser);
        if (action == QLatin1String("fee-rate"))
            return setFeeRate(parser);
        return verify(parser);
    }

private:
    int importStatement(const QCommandLineParser &parser)
    {
        const QStringList arguments = parser.positionalArguments();
        if (arguments.size() != 2)
            return fail(name(), usage(QStringLiteral("import takes one statement file")));
        const std::optional<StatementFormat> format =
            statementFormatNamed(option(parser, "format"));
        if (!format)
            return fail(name(), usage(QStringLiteral("--format must be alipay, wechatpay, "
                                                     "stripe or csv")));
        Result<QByteArray> bytes = readFile(arguments.at(1));
        if (!bytes)
            return fail(name(), bytes.error());
        Result<LibpqConnection> session = openDatabase(parser);
        if (!session)
            return fail(name(), session.error());
        Result<CurrencyTable> currencies = loadCurrencies(*session);
        if (!currencies)
            return fail(name(), currencies.error());
        Result<ImportedStatement> stored =
            keel::importStatement(*session, option(parser, "channel"),
                                  {*format, *bytes, option(parser, "sha1")}, *currencies);
        if (!stored)
            return fail(name(), namingTheCheck(stored.error()));
        if (stored->alreadyImported)
            note(QStringLiteral("keel recon: this file was imported before; nothing stored"));
        printLine(QStringLiteral("statement=%1 lines=%2 days=%3")
                      .arg(stored->id)
                      .arg(stored->lines)
                      .arg(stored->days.join(u',')));
        return ExitOk;
    }

    int runDay(const QCommandLineParser &parser)
    {
        const QDate date = QDate::fromString(option(parser, "date"), Qt::ISODate);
        if (!date.isValid())
            return fail(name(), usage(QStringLiteral("--date must be a day as YYYY-MM-DD")));
        Result<LibpqConnection> session = openDatabase(parser);
        if (!session)
            return fail(name(), session.error());
        Result<ReconReport> report = runReconciliation(*session, option(parser, "channel"), date);
        if (!report)
            return fail(name(), report.error());
        if (parser.isSet(QStringLiteral("json")))
            printLine(QString::fromUtf8(reportJson(*report)));
        else
            printLine(QStringLiteral("matched=%1 breaks=%2 run=%3 cases_opened=%4%5")
                          .arg(report->matched)
                          .arg(report->breaks.size())
                          .arg(report->runId)
                          .arg(report->casesOpened)
                          .arg(reopenedDays(*report).isEmpty()
                                   ? QString()
                                   : QStringLiteral(" reopened=") + reopenedDays(*report)));
        return ExitOk;
    }

    int setFeeRate(const QCommandLineParser &parser)
    {
        Result<int> ppm = intOption(parser, QStringLiteral("ppm"), -1, 0, 1000000);
        if (!ppm)
            return fail(name(), ppm.error());
        if (*ppm < 0)
            return fail(name(), usage(QStringLiteral("--ppm is required")));
        Result<LibpqConnection> session = openDatabase(parser);
        if (!session)
            return fail(name(), session.error());
        if (Status set = setContractedFeeRate(*session, option(parser, "channel"), *ppm); !set)
            return fail(name(), set.error());
        printLine(
            QStringLiteral("channel=%1 fee_rate_ppm=%2").arg(option(parser, "channel")).arg(*ppm));
        return ExitOk;
    }

    int verify(const QCommandLineParser &parser)
    {
        bool ok = false;
        const qint64 runId = option(parser, "run").toLongLong(&ok);
        if (!ok || runId <= 0)
            return fail(name(), usage(QStringLiteral("--run must be a run's id")));
        Result<LibpqConnection> session = openDatabase(parser);
        if (!session)
            return fail(name(), session.error());
        Result<RunCheck> check = recomputeRun(*session, runId);
        if (!check)
            return fail(name(), check.error());
        const QString recorded = QString::fromLatin1(check->recorded.toHex());
        const QString recomputed = QString::fromLatin1(check->recomputed.toHex());
        const QString inputs =
            check->basis == RunCheck::Basis::AsRead
                ? QStringLiteral("the lines and postings it read")
            : check->basis == RunCheck::Basis::TodayBeforeV49
                ? QStringLiteral("today's lines and postings (a run before schema v49)")
                : QStringLiteral("today's lines and postings (the database was restored from a "
                                 "dump since the run)");
        if (!check->holds())
            return fail(name(), makeError(ErrorKind::Failed,
                                          QStringLiteral("run %1 recorded result %2, %3 now "
                                                         "give %4")
                                              .arg(runId)
                                              .arg(recorded, inputs, recomputed)));
        printLine(QStringLiteral("run %1 verified on %2: result_sha256=%3")
                      .arg(runId)
                      .arg(inputs, recomputed));
        return ExitOk;
    }

    static Result<QByteArray> readFile(const QString &path)
    {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return usage(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
        if (file.size() > StatementFileLimit)
            return usage(QStringLiteral("%1 is larger than a statement can be").arg(path));
        return file.readAll();
    }

    static QString reopenedDays(const ReconReport &report)
    {
        QStringList days;
        for (const QDate &day : report.reopened)
            days << day.toString(Qt::ISODate);
        return days.join(u',');
    }

    static QByteArray reportJson(const ReconReport &report)
    {
        JsonWriter json;
        json.beginObject()
            .field(QStringLiteral("run"), report.runId)
            .field(QStringLiteral("channel"), report.channel)
            .field(QStringLiteral("date"), report.date.toString(Qt::ISODate))
            .field(QStringLiteral("matched"), report.matched);
        json.key(QStringLiteral("breaks")).beginArray();
        for (const StoredBreak &stored : report.breaks) {
            json.beginObject().field(QStringLiteral("id"), stored.id);
            writeBreakFields(json, stored.found)
                .field(QStringLiteral("status"), stored.status)
                .endObject();
        }
        json.endArray()
            .field(QStringLiteral("cases_opened"), report.casesOpened)
            .field(QStringLiteral("reopened"), reopenedDays(report))
            .field(QStringLiteral("result_sha256"),
                   QString::fromLatin1(report.resultSha256.toHex()));
        return json.endObject().take();
    }
};

} // namespace

std::unique_ptr<Command> makeReconCommand()
{
    return std::make_unique<ReconCommand>();
}

} // namespace keel::cli
