#include "core/payment/ChargeRequest.h"

#include "core/idempotency/Fingerprint.h"

namespace keel {

QByteArray chargeTerms(const ChargeRequest &request)
{
    Fingerprint terms(QStringLiteral("charge-terms"));
    terms.add(QStringLiteral("amount"), request.amount)
        .add(QStringLiteral("currency"), request.currency.code)
        .add(QStringLiteral("source"), request.source)
        .add(QStringLiteral("capture"), request.capture);
    return terms.hash();
}

} // namespace keel
