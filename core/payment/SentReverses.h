#pragma once

#include "core/Result.h"
#include "core/db/ConnectionSettings.h"

#include <QByteArrayList>
#include <QString>

namespace keel {

class PgRows;

// The reverses a process sent to a channel, and whether each one's fate is
// known, kept in keel.channel_reverses so that every process sees the
// reverses any other one sent (migration 0037). A copy is recorded before it
// is sent: a process that dies with it on its way leaves it unsettled.
// Its own session (application_name keel-channel-reverses), never the
// caller's transaction.
class SentReverses final {
public:
    SentReverses(ConnectionSettings settings, QString channel);

    // Records a copy of the order's reverse about to be sent; its number.
    Result<qint64> record(const QString &order);
    // The channel answered this copy for certain: it did what it said.
    Status settle(qint64 copy);
    // The order reads closed (a copy landed, or it closed by itself): no copy
    // can change that. Its unsettled copies are settled and marked so, and
    // a "paid" read of it before it closed is never believed afterwards.
    Status settleOrder(const QString &order);

    struct Standing {
        bool unsettled = false; // a copy, sent by any process, may still be carried out
        bool closed = false;    // a copy was settled by the order reading closed
        // An unsettled copy was recorded more than `staleAfterSeconds` ago:
        // its sender has long had its answer, or none.
        bool staleUnsettled = false;
    };
    Result<Standing> standing(const QString &order, int staleAfterSeconds = 0);
    // Whether an approval of the order may still be undone by a copy (one
    // unsettled, or one seen to land), or keel cannot tell: then no "paid",
    // answered or notified, is believed.
    bool approvalMayBeUndone(const QString &order);

private:
    Result<PgRows> run(const QByteArray &sql, const QByteArrayList &params);

    ConnectionSettings m_settings;
    QString m_channel;
};

} // namespace keel
