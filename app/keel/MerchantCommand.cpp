#include "Command.h"

#include "core/db/ConnectionSettings.h"
#include "core/db/LibpqConnection.h"
#include "core/merchant/MerchantStore.h"
#include "core/net/HttpClient.h"

#include <QCommandLineParser>

namespace keel::cli {
namespace {

class MerchantCommand final : public Command {
public:
    QString name() const override { return QStringLiteral("merchant"); }
    QString summary() const override
    {
        return QStringLiteral("Issue a merchant: \"keel merchant create --name NAME\" prints "
                              "merchant_id, api_key and webhook_secret once; \"keel merchant "
                              "rotate-secret --merchant ID\" prints a new webhook_secret once.");
    }
    QStringList actions() const override
    {
        return {QStringLiteral("create"), QStringLiteral("rotate-secret")};
    }

    void addOptions(QCommandLineParser &parser) const override
    {
        parser.addPositionalArgument(QStringLiteral("action"),
                                     QStringLiteral("create, or rotate-secret."));
        addDatabaseOption(parser);
        parser.addOption({QStringLiteral("name"), QStringLiteral("The merchant's name."),
                          QStringLiteral("NAME")});
        parser.addOption({QStringLiteral("notify-url"),
                          QStringLiteral("Where signed payment notifications go: an https:// "
                                         "URL."),
                          QStringLiteral("URL")});
        parser.addOption({QStringLiteral("allow-http"),
                          QStringLiteral("create: accept a plain http:// --notify-url, for a "
                                         "deployment whose workers run with --allow-http "
                                         "(development and tests).")});
        parser.addOption({QStringLiteral("merchant"),
                          QStringLiteral("rotate-secret: the merchant's id."),
                          QStringLiteral("ID")});
        parser.addOption({QStringLiteral("keep-previous-hours"),
                          QStringLiteral("rotate-secret: hours the old secret still signs "
                                         "notifications beside the new one (default 24)."),
                          QStringLiteral("H")});
    }

    int run(const QCommandLineParser &parser) override
    {
        if (parser.positionalArguments().constFirst() == QLatin1String("rotate-secret"))
            return rotateSecret(parser);
        if (!parser.isSet(QStringLiteral("name")))
            return fail(name(), makeError(ErrorKind::Usage, QStringLiteral("--name is required")));
        HttpClient::allowPlainHttp(parser.isSet(QStringLiteral("allow-http")));
        Result<LibpqConnection> session = openDatabase(parser);
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

private:
    int rotateSecret(const QCommandLineParser &parser)
    {
        bool numeric = false;
        const qint64 merchant = parser.value(QStringLiteral("merchant")).toLongLong(&numeric);
        if (!numeric || merchant <= 0)
            return fail(name(), makeError(ErrorKind::Usage,
                                          QStringLiteral("--merchant must be a merchant id")));
        Result<int> keep = intOption(parser, QStringLiteral("keep-previous-hours"), 24, 0, 720);
        if (!keep)
            return fail(name(), keep.error());
        Result<LibpqConnection> session = openDatabase(parser);
        if (!session)
            return fail(name(), session.error());
        Result<QString> secret = MerchantStore(*session).rotateSecret(merchant, *keep);
        if (!secret)
            return fail(name(), secret.error());
        printLine(QStringLiteral("merchant_id=%1 webhook_secret=%2").arg(merchant).arg(*secret));
        return ExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeMerchantCommand()
{
    return std::make_unique<MerchantCommand>();
}

} // namespace keel::cli
