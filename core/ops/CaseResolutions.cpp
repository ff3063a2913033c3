#include "core/ops/CaseResolutions.h"

#include "core/read/SuspenseQuery.h"

namespace keel::CaseResolutions {

bool canGiveBack(const SuspenseCaseRow &held)
{
    // A saga's case or a channel notice's is never a run's parking.
    return (held.status == QLatin1String("open") || held.status == QLatin1String("in_review")) &&
           !held.chargeId.isEmpty() && held.sagaId.isEmpty() && held.notice.isEmpty() &&
           held.amount > 0 && !held.awaitingRun;
}

ProposalRequest giveBack(const SuspenseCaseRow &held, GiveBackTo to)
{
    ProposalRequest request;
    request.kind = QStringLiteral("case.give_back");
    request.targetType = QStringLiteral("suspense_case");
    request.summary = QString::number(held.id);
    request.targets << ActionTarget{QString::number(held.id), held.version};
    request.payload.insert(QStringLiteral("to"), to == GiveBackTo::Merchant
                                                     ? QStringLiteral("merchant")
                                                     : QStringLiteral("loss"));
    return request;
}

} // namespace keel::CaseResolutions
