#include "Command.h"

#include "core/db/ConnectionSettings.h"
#include "core/db/PgConnection.h"
#include "core/ledger/Ledger.h"

#include <QCommandLineParser>

namespace keel::cli {
namespace {

class AuditCommand final : public Command {
public:
    QString name() const override { return QStringLiteral("audit"); }
    QString summary() const override
    {
        return QStringLiteral("Check invariants: \"keel audit ledger\" verifies that every posting "
                              "balances and matches its charge; exit 1 names the first violation.");
    }
    QStringList actions() const override { return {QStringLiteral("ledger")}; }

    void addOptions(QCommandLineParser &parser) const override
    {
        parser.addPositionalArgument(QStringLiteral("ledger"), QStringLiteral("Audit the ledger."));
        addDatabaseOption(parser);
    }

    int run(const QCommandLineParser &parser) override
    {
        Result<PgConnection> session = openDatabase(parser);
        if (!session)
            return fail(name(), session.error());
        Result<Ledger::AuditReport> report = Ledger::audit(*session);
        if (!report)
            return fail(name(), report.error());
        if (!report->violations.isEmpty())
            return fail(name(), makeError(ErrorKind::Failed,
                                          QStringLiteral("the ledger does not add up: %1")
                                              .arg(report->violations.join(QStringLiteral("; ")))));
        printLine(QStringLiteral("ledger balances: %1 transactions, %2 entries checked")
                      .arg(report->transactions)
                      .arg(report->entries));
        return ExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeAuditCommand()
{
    return std::make_unique<AuditCommand>();
}

} // namespace keel::cli
