#include "Command.h"

#include "core/db/ConnectionSettings.h"
#include "core/db/LibpqConnection.h"
#include "core/ledger/Ledger.h"
#include "core/ops/AuditChain.h"

#include <QCommandLineParser>
#include <QFile>
#include <QSaveFile>

namespace keel::cli {
namespace {

class AuditCommand final : public Command {
public:
    QString name() const override { return QStringLiteral("audit"); }
    QString summary() const override
    {
        return QStringLiteral(
            "Check invariants: \"keel audit ledger\" verifies that every posting balances and "
            "matches its charge; \"keel audit verify [--checkpoint FILE]\" recomputes the audit "
            "log's hash chain (and that it still holds a checkpoint); \"keel audit checkpoint "
            "[--out FILE]\" prints the chain's head to keep outside the database. Exit 1 names "
            "the first violation.");
    }
    QStringList actions() const override
    {
        return {QStringLiteral("ledger"), QStringLiteral("verify"), QStringLiteral("checkpoint")};
    }

    void addOptions(QCommandLineParser &parser) const override
    {
        parser.addPositionalArgument(QStringLiteral("action"),
                                     QStringLiteral("ledger, verify, or checkpoint."));
        addDatabaseOption(parser);
        parser.addOption({QStringLiteral("checkpoint"),
                          QStringLiteral("verify: a file \"keel audit checkpoint\" wrote; the "
                                         "chain must still hold it."),
                          QStringLiteral("FILE")});
        parser.addOption({QStringLiteral("out"),
                          QStringLiteral("checkpoint: also write the checkpoint to this file."),
                          QStringLiteral("FILE")});
    }

    int run(const QCommandLineParser &parser) override
    {
        const QString action = parser.positionalArguments().constFirst();
        std::optional<AuditCheckpoint> checkpoint;
        if (action == QLatin1String("verify") && parser.isSet(QStringLiteral("checkpoint"))) {
            Result<AuditCheckpoint> read =
                readCheckpoint(parser.value(QStringLiteral("checkpoint")));
            if (!read)
                return fail(name(), read.error());
            checkpoint = *read;
        }
        Result<LibpqConnection> session = openDatabase(parser);
        if (!session)
            return fail(name(), session.error());
        if (action == QLatin1String("verify"))
            return verify(*session, checkpoint);
        if (action == QLatin1String("checkpoint"))
            return writeCheckpoint(*session, parser.value(QStringLiteral("out")));
        return auditLedger(*session);
    }

private:
    int auditLedger(LibpqConnection &session)
    {
        Result<Ledger::AuditReport> report = Ledger::audit(session);
        if (!report)
            return fail(name(), report.error());
        if (!report->violations.isEmpty())
            return fail(name(), makeError(ErrorKind::Failed,
                                          QStringLiteral("the ledger does not add up: %1")
                                              .arg(report->violations.join(QStringLiteral("; ")))));
        printLine(QStringLiteral("ledger balances: %1 transactions, %2 entries checked; %3 "
                                 "charges match the channel's own record")
                      .arg(report->transactions)
                      .arg(report->entries)
                      .arg(report->chargesAgainstChannel));
        return ExitOk;
    }

    int verify(LibpqConnection &session, const std::optional<AuditCheckpoint> &checkpoint)
    {
        Result<AuditChainReport> report = AuditChain(session).verify(checkpoint);
        if (!report)
            return fail(name(), report.error());
        if (!report->intact())
            return fail(name(), makeError(ErrorKind::Failed,
                                          QStringLiteral("the audit chain is broken: %1 (%2 "
                                                         "links before it are intact)")
                                              .arg(report->firstBreak->describe())
                                              .arg(report->links)));
        printLine(QStringLiteral("audit chain intact: %1 links, head %2%3")
                      .arg(report->links)
                      .arg(report->head.toText(),
                           checkpoint
                               ? QStringLiteral(", holds checkpoint seq=%1").arg(checkpoint->seq)
                               : QString()));
        return ExitOk;
    }

    int writeCheckpoint(LibpqConnection &session, const QString &path)
    {
        Result<AuditCheckpoint> head = AuditChain(session).head();
        if (!head)
            return fail(name(), head.error());
        const QByteArray line = head->toText().toUtf8() + '\n';
        if (!path.isEmpty()) {
            QSaveFile file(path);
            if (!file.open(QIODevice::WriteOnly) || file.write(line) != line.size() ||
                !file.commit())
                return fail(
                    name(),
                    makeError(
                        ErrorKind::Environment,
                        QStringLiteral("cannot write --out %1: %2").arg(path, file.errorString())));
        }
        printLine(QString::fromUtf8(line.trimmed()));
        return ExitOk;
    }

    static Result<AuditCheckpoint> readCheckpoint(const QString &path)
    {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return makeError(
                ErrorKind::Usage,
                QStringLiteral("cannot read --checkpoint %1: %2").arg(path, file.errorString()));
        Result<AuditCheckpoint> checkpoint = AuditCheckpoint::parse(file.read(4096));
        if (!checkpoint)
            return makeError(
                ErrorKind::Usage,
                QStringLiteral("--checkpoint %1: %2").arg(path, checkpoint.error().message));
        return checkpoint;
    }
};

} // namespace

std::unique_ptr<Command> makeAuditCommand()
{
    return std::make_unique<AuditCommand>();
}

} // namespace keel::cli
