#include "core/ops/CaseResolutions.h"

#include "core/read/SuspenseQuery.h"

#include <QJsonArray>
#include <QJsonObject>

namespace keel::CaseResolutions {

namespace {

bool stillOpen(const SuspenseCaseRow &row)
{
    return row.status == QLatin1String("open") || row.status == QLatin1String("in_review");
}

ProposalRequest onCase(const QString &kind, const SuspenseCaseRow &row)
{
    ProposalRequest request;
    request.kind = kind;
    request.targetType = QStringLiteral("suspense_case");
    request.summary = QString::number(row.id);
    request.targets << ActionTarget{QString::number(row.id), row.version};
    return request;
}

} // namespace

QString bearerAccount(const SuspenseCaseRow &row, bool merchant)
{
    return merchant ? QStringLiteral("merchant_payable:%1:%2").arg(row.merchantId).arg(row.currency)
                    : QStringLiteral("operational_loss:") + row.currency;
}

bool canGiveBack(const SuspenseCaseRow &held)
{
    // A saga's case or a channel notice's is never a run's parking.
    return stillOpen(held) && !held.chargeId.isEmpty() && held.sagaId.isEmpty() &&
           held.notice.isEmpty() && held.amount > 0 && !held.awaitingRun && !held.owed;
}

ProposalRequest giveBack(const SuspenseCaseRow &held, GiveBackTo to)
{
    ProposalRequest request = onCase(QStringLiteral("case.give_back"), held);
    request.payload.insert(QStringLiteral("to"), to == GiveBackTo::Merchant
                                                     ? QStringLiteral("merchant")
                                                     : QStringLiteral("loss"));
    return request;
}

bool canChargeOwed(const SuspenseCaseRow &owed)
{
    // Without a merchant only the loss account can bear it; the database
    // refuses a merchant it cannot name.
    return stillOpen(owed) && owed.owed && owed.amount > 0 && !owed.awaitingRun;
}

ProposalRequest chargeOwed(const SuspenseCaseRow &owed, OwedBy by)
{
    ProposalRequest request = onCase(QStringLiteral("case.adjust"), owed);
    const QString account = bearerAccount(owed, by == OwedBy::Merchant);
    request.payload.insert(QStringLiteral("postings"),
                           QJsonArray{QJsonObject{{QStringLiteral("account"), account},
                                                  {QStringLiteral("amount"), owed.amount}}});
    return request;
}

} // namespace keel::CaseResolutions
