#include "Command.h"

#include "core/db/ConnectionSettings.h"
#include "core/db/PgConnection.h"
#include "core/merchant/MerchantStore.h"

#include <QCommandLineParser>

namespace keel::cli {
namespace {

class MerchantCommand final : public Command {
public:
    QString name() const override { return QStringLiteral("merchant"); }
    QString summary() const override
    {
        return QStringLiteral("Issue a merchant: \"keel merchant create --name NAME\" prints "
                              "merchant_id, api_key and webhook_secret once.");
    }
    QStringList actions() const override { return {QStringLiteral("create")}; }

    void addOptions(QCommandLineParser &parser) const override
    {
        parser.addPositionalArgument(QStringLiteral("create"),
                                     QStringLiteral("Create a merchant."));
        addDatabaseOption(parser);
        parser.addOption({QStringLiteral("name"), QStringLiteral("The merchant's name."),
                          QStringLiteral("NAME")});
        parser.addOption({QStringLiteral("notify-url"),
                          QStringLiteral("Where signed payment notifications go (http/https)."),
                          QStringLiteral("URL")});
    }

    int run(const QCommandLineParser &parser) override
    {
        if (!parser.isSet(QStringLiteral("name")))
            return fail(name(), makeError(ErrorKind::Usage, QStringLiteral("--name is required")));
        Result<PgConnection> session = openDatabase(parser);
        if (!session)
            return fail(name(), session.error());
        Result<IssuedMerchant> issued = MerchantStore(*session).create(
            parser.value(QStringLiteral("name")), parser.value(QStringLiteral("notify-url")));
        if (!issued)
            return fail(name(), issued.error());
        printLine(QStringLiteral("merchant_id=%1 api_key=%2 webhook_secret=%3")
                      .arg(issued->merchant.id)
                      .arg(issued->apiKey, issued->webhookSecret));
        return ExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeMerchantCommand()
{
    return std::make_unique<MerchantCommand>();
}

} // namespace keel::cli
