#include "core/metrics/PaymentStateFold.h"

#include "core/db/LibpqConnection.h"

namespace keel {

Result<qint64> PaymentStateFold::run(LibpqConnection &session, int batch, int maxRounds)
{
    qint64 total = 0;
    for (int round = 0; round < maxRounds; ++round) {
        Result<PgRows> folded =
            session.query("SELECT keel.fold_payment_states($1)", {QByteArray::number(batch)});
        if (!folded)
            return folded.error();
        const qint64 ids = folded->toInt64(0, 0);
        total += ids;
        if (ids < batch)
            break;
    }
    return total;
}

} // namespace keel
