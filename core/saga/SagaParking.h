#pragma once

#include "core/Result.h"

#include <QJsonObject>
#include <QString>

namespace keel {

class LibpqConnection;
struct SagaRecord;

// Parks a saga whose compensation failed its last round (差错户): in one
// transaction the saga stops for good, a suspense case opens, and the money
// still in question — what the saga's charge captured and no refund
// returned, unless its charge step was compensated — moves from the
// merchant's payable account to the currency's suspense account with one
// balanced posting. A case that moves no money (a participant that would not
// undo a reservation) opens with amount 0 and no posting.
class SagaParking final {
public:
    explicit SagaParking(LibpqConnection &connection) : m_connection(connection) {}

    struct Request {
        int step = 0;       // the step whose compensation (or confirm) failed for good
        QString stepStatus; // what that step is left as
        QString reason;     // the case's reason: the last error, or a person's words
        QJsonObject detail; // the step event's detail
        QString stepEvent = QStringLiteral("attempt_ended");
    };
    // Returns the case's id. `owner` is the lease holder ("" for a person).
    // While a channel operation on the saga's charge is in flight (a refund
    // the channel has not answered), nothing is parked and the error carries
    // ErrorCode::ChannelInFlight: the case would not hold what that
    // operation moves. `saga` changes only when the park commits.
    Result<qint64> park(SagaRecord &saga, const QString &owner, const Request &request);

private:
    struct Money {
        qint64 amount = 0;
        QString currency;
        qint64 merchantId = 0;
    };
    Result<qint64> chargeMadeByItsSteps(const SagaRecord &saga);
    Result<Money> moneyInQuestion(const SagaRecord &saga, bool lock);
    Result<qint64> parkInTransaction(SagaRecord &saga, const QString &owner,
                                     const Request &request);

    LibpqConnection &m_connection;
};

} // namespace keel
