#include "core/ops/BreakResolutions.h"

#include "core/read/ReconQuery.h"

namespace keel::BreakResolutions {
namespace {

bool open(const ReconBreakRow &found)
{
    return !found.awaitingRun &&
           (found.status == QLatin1String("new") || found.status == QLatin1String("persisting"));
}

bool acceptedOrOpen(const ReconBreakRow &found)
{
    return open(found) || (!found.awaitingRun && found.status == QLatin1String("accepted"));
}

ProposalRequest about(const char *kind, const QList<const ReconBreakRow *> &breaks)
{
    ProposalRequest request;
    request.kind = QString::fromLatin1(kind);
    request.targetType = QStringLiteral("recon_break");
    QStringList named;
    for (const ReconBreakRow *found : breaks) {
        request.targets << ActionTarget{QString::number(found->id), found->version};
        named << found->reference;
    }
    request.summary = named.join(QStringLiteral(" = "));
    return request;
}

} // namespace

bool canMatch(const ReconBreakRow &first, const ReconBreakRow &second)
{
    const bool firstAtKeel = first.breakClass == QLatin1String("missing_at_keel");
    const ReconBreakRow &atKeel = firstAtKeel ? first : second;
    const ReconBreakRow &atChannel = firstAtKeel ? second : first;
    return atKeel.breakClass == QLatin1String("missing_at_keel") &&
           atChannel.breakClass == QLatin1String("missing_at_channel") &&
           atKeel.channel == atChannel.channel && atKeel.kind == atChannel.kind &&
           atKeel.channelAmount.currency == atChannel.channelAmount.currency &&
           atKeel.channelAmount.amount == atChannel.keelAmount && acceptedOrOpen(atKeel) &&
           acceptedOrOpen(atChannel);
}

ProposalRequest match(const ReconBreakRow &first, const ReconBreakRow &second)
{
    return about("recon_break.match", {&first, &second});
}

bool canAccept(const ReconBreakRow &found)
{
    return open(found);
}

ProposalRequest accept(const ReconBreakRow &found, const QDate &until)
{
    ProposalRequest request = about("recon_break.accept", {&found});
    request.payload.insert(QStringLiteral("until"), until.toString(Qt::ISODate));
    return request;
}

bool canAdjustFee(const ReconBreakRow &found)
{
    return open(found) && found.breakClass == QLatin1String("fee_variance");
}

ProposalRequest feeAdjustment(const ReconBreakRow &found)
{
    return about("recon_break.fee_adjust", {&found});
}

bool canTakeBack(const ReconBreakRow &found)
{
    return open(found) && found.kind == QLatin1String("payment") &&
           (found.breakClass == QLatin1String("status_mismatch") ||
            found.breakClass == QLatin1String("amount_mismatch")) &&
           found.channelAmount.amount >= 0 && found.keelAmount > found.channelAmount.amount;
}

ProposalRequest takeBack(const ReconBreakRow &found, TakeBackBearer bearer)
{
    ProposalRequest request = about("recon_break.take_back", {&found});
    request.payload.insert(QStringLiteral("against"), bearer == TakeBackBearer::Merchant
                                                          ? QStringLiteral("merchant")
                                                          : QStringLiteral("loss"));
    return request;
}

bool canWithdraw(const ReconStatementRow &statement)
{
    return statement.id > 0 && !statement.withdrawnAt.isValid();
}

ProposalRequest withdrawal(const ReconStatementRow &statement)
{
    ProposalRequest request;
    request.kind = QStringLiteral("recon_statement.withdraw");
    request.targetType = QStringLiteral("recon_statement");
    request.summary = QStringLiteral("statement %1 (%2, %3 lines)")
                          .arg(statement.id)
                          .arg(statement.channel)
                          .arg(statement.lines);
    request.targets << ActionTarget{QString::number(statement.id), statement.version};
    return request;
}

} // namespace keel::BreakResolutions
