// WechatPayChannel's reverses (撤销): when keel reverses an order, how a copy
// is recorded and read back, and what an order WeChat Pay never saw means.
// The reverse's exchange itself is sendReverse, beside the other calls.

#include "core/channel/WechatPayChannel.h"

#include <QDateTime>

#include <algorithm>

namespace keel {
namespace {

ChannelResult unknown(const QString &why)
{
    return {ChannelOutcome::Unknown, {}, why};
}

} // namespace

// A closed order (CLOSED, REVOKED) stands whatever reverse may land, and
// settles every copy. Otherwise, while a copy of its reverse may still be
// carried out: an order that still holds no payment is reversed again, to
// learn its fate; one read paid is left in doubt, never reversed (the copy
// may never have left, or be in its sender's last look at the order).
std::optional<ChannelResult> WechatPayChannel::afterReading(const ChannelRequest &operation,
                                                            const ChannelResult &known,
                                                            const QString &unpaid)
{
    if (known.outcome == ChannelOutcome::Closed) {
        // Left unsettled if this fails: the next look finds the order closed.
        (void)m_reverses.settleOrder(operation.chargeId());
        return known;
    }
    const Result<SentReverses::Standing> standing =
        m_reverses.standing(operation.chargeId(), staleAfterSeconds());
    if (!standing)
        return unknown(QStringLiteral("nothing sent: the reverses of %1 could not be read (%2)")
                           .arg(operation.chargeId(), standing.error().message));
    if (!standing->unsettled)
        return std::nullopt;
    if (!unpaid.isEmpty())
        return reverse(operation, false);
    // Read paid with a copy whose sender has long had its answer, or none:
    // keel set out to reverse this order, and finishes, so that the copy's
    // fate is known (WeChat Pay gives a paid order back on a reverse).
    if (standing->staleUnsettled)
        return sendReverse(operation, false, false);
    return unknown(QStringLiteral("a reverse of %1 may still be carried out; not reversed again "
                                  "yet: %2")
                       .arg(operation.chargeId(), known.message));
}

// Longer than any sender takes from recording its copy to its answer (a
// read and a reverse, each within the timeout, and the client's one resend).
int WechatPayChannel::staleAfterSeconds() const
{
    return std::max(120, 5 * m_options.timeoutMs / 1000);
}

ChannelResult WechatPayChannel::closeOrder(const ChannelRequest &operation, bool justRefused)
{
    QString unpaid;
    const ChannelResult known = queryTrade(operation, &unpaid);
    if (std::optional<ChannelResult> decided = afterReading(operation, known, unpaid))
        return *decided;
    // A reverse gives a paid order's money back: only an unpaid one is reversed.
    if (known.outcome == ChannelOutcome::Approved)
        return known;
    if (unpaid.isEmpty())
        return unknown(QStringLiteral("not reversed: %1").arg(known.message));
    return reverse(operation, justRefused);
}

ChannelResult WechatPayChannel::reverse(const ChannelRequest &operation, bool justRefused)
{
    const QString order = operation.chargeId();
    // Recorded before it is sent: a process that dies with the reverse on
    // its way leaves it unsettled, and whichever process looks next sends it
    // again instead of believing the order.
    const Result<qint64> copy = m_reverses.record(order);
    if (!copy)
        return unknown(
            QStringLiteral("the reverse of %1 was not sent: it could not be recorded (%2)")
                .arg(order, copy.error().message));
    bool seenAbsent = false;
    if (std::optional<ChannelResult> kept = stillUnpaid(operation, *copy, &seenAbsent))
        return *kept;
    return sendReverse(operation, justRefused, seenAbsent, *copy);
}

// The order is read again now that the copy is recorded: whoever reads it
// paid from now on sees the copy (unlessReversing). What to answer instead
// of sending the reverse, if the order no longer holds no payment.
std::optional<ChannelResult> WechatPayChannel::stillUnpaid(const ChannelRequest &operation,
                                                           qint64 copy, bool *seenAbsent)
{
    QString unpaid;
    const ChannelResult now = queryTrade(operation, &unpaid);
    *seenAbsent = now.outcome == ChannelOutcome::NotFound;
    if (now.outcome == ChannelOutcome::Closed) {
        (void)m_reverses.settleOrder(operation.chargeId());
        return now;
    }
    if (!unpaid.isEmpty())
        return std::nullopt;
    (void)m_reverses.settle(copy); // never sent
    return now.outcome == ChannelOutcome::Approved
               ? now
               : unknown(QStringLiteral("not reversed: %1").arg(now.message));
}

// No copy of the order's reverse is unsettled (an error: there may be).
bool WechatPayChannel::alone(const QString &order)
{
    const Result<SentReverses::Standing> standing = m_reverses.standing(order);
    return standing && !standing->unsettled;
}

// WeChat Pay has no such order, and says nothing of one a payment request
// still on its way would make. None can be on its way when the only request
// ever sent was just refused, or when the payment code is too old to pay with.
ChannelResult WechatPayChannel::neverSeen(const ChannelRequest &operation, bool justRefused,
                                          const QString &why) const
{
    const qint64 age = QDateTime::currentSecsSinceEpoch() - operation.chargeCreatedEpoch;
    if (justRefused ||
        (operation.chargeCreatedEpoch > 0 && age > m_options.paymentCodeLifetimeSeconds))
        return {
            ChannelOutcome::Closed, {}, QStringLiteral("%1: no order, and none can come").arg(why)};
    return unknown(QStringLiteral("WeChat Pay has no order %1 to reverse; a payment request on "
                                  "its way could still make one for %2 s")
                       .arg(operation.chargeId())
                       .arg(m_options.paymentCodeLifetimeSeconds - age));
}

} // namespace keel
