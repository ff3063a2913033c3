#include "core/payment/ChannelNotices.h"

#include "core/db/LibpqConnection.h"
#include "core/payment/ChannelCall.h"
#include "core/payment/ChargeService.h"
#include "core/payment/IdempotentOperation.h"
#include "core/payment/PaymentContext.h"
#include "core/payment/PaymentRepository.h"
#include "core/payment/SentReverses.h"

namespace keel {
QString noticeVerdictCode(NoticeVerdict verdict)
{
    switch (verdict) {
    case NoticeVerdict::Applied:
        return QStringLiteral("applied");
    case NoticeVerdict::Unchanged:
        return QStringLiteral("unchanged");
    case NoticeVerdict::Conflicting:
        return QStringLiteral("conflicting");
    case NoticeVerdict::UnknownCharge:
        return QStringLiteral("unknown_charge");
    case NoticeVerdict::AmountMismatch:
        return QStringLiteral("amount_mismatch");
    case NoticeVerdict::ReplayedNonce:
        return QStringLiteral("replayed_nonce");
    }
    return {};
}

ChannelNotices::ChannelNotices(const PaymentContext &context, LibpqConnection &connection,
                               const ReplyRenderer &replies)
    : m_context(context), m_connection(connection), m_replies(replies)
{}

Result<NoticeVerdict> ChannelNotices::apply(const ChannelNotice &notice)
{
    Result<PgRows> seen = m_connection.query(
        "SELECT coalesce(bool_or(notice_id = $2), false), "
        "  coalesce(bool_or(nonce = nullif($3, '')), false) "
        "FROM keel.channel_notifications WHERE channel = $1 "
        "  AND (notice_id = $2 OR nonce = nullif($3, ''))",
        {notice.channel.toUtf8(), notice.noticeId.toUtf8(), notice.nonce.toUtf8()});
    if (!seen)
        return seen.error();
    if (seen->value(0, 0) == "t")
        return NoticeVerdict::Unchanged; // the channel repeats until it is answered
    if (seen->value(0, 1) == "t")
        return NoticeVerdict::ReplayedNonce;
    Result<NoticeVerdict> verdict = judge(notice);
    if (!verdict)
        return verdict;
    Result<bool> kept = remember(notice, *verdict);
    if (!kept && kept.error().is(ErrorCode::UniqueViolation))
        return NoticeVerdict::ReplayedNonce; // the same nonce, raced in by another request
    if (!kept)
        return kept.error();
    return *kept ? *verdict : NoticeVerdict::Unchanged;
}

Result<NoticeVerdict> ChannelNotices::judge(const ChannelNotice &notice)
{
    Result<std::optional<ChargeRecord>> found =
        PaymentRepository(m_connection).findByReference(notice.reference);
    if (!found)
        return found.error();
    if (!found->has_value())
        return NoticeVerdict::UnknownCharge;
    ChargeRecord charge = **found;
    if ((notice.amount >= 0 && notice.amount != charge.amount) ||
        (!notice.currency.isEmpty() && notice.currency != charge.currency))
        return NoticeVerdict::AmountMismatch;
    const bool approved = notice.outcome == ChannelOutcome::Approved;
    if (charge.state == PaymentState::Authorizing || charge.state == PaymentState::Capturing) {
        // A payment keel asked the channel to undo, and may yet be undone,
        // is not settled by a notice of it: the channel repeats its notice.
        // Asked of the notice's channel, whichever channel this process calls.
        if (approved &&
            SentReverses(m_context.settings, notice.channel).approvalMayBeUndone(charge.publicId))
            return codedError(ErrorKind::Failed,
                              QString::fromLatin1(ErrorCode::ApprovalMayBeUndone),
                              QStringLiteral("%1 may still be reversed at the channel: its "
                                             "payment is not believed yet")
                                  .arg(charge.publicId));
        ChannelResult result{notice.outcome,
                             {},
                             QStringLiteral("settled by the channel's notification"),
                             approved ? notice.channelReference : QString()};
        if (!approved && charge.state == PaymentState::Authorizing) {
            // A failed notice speaks of one attempt to pay (WeChat's PAYERROR, Stripe's
            // charge.failed): the payer may try again at the channel. The authorization
            // fails only once it is closed there, or settles as what the channel did.
            result = closeUnprocessed(*m_context.channel,
                                      {charge.publicId, QStringLiteral("authorize"), charge.amount,
                                       charge.currency, charge.source, charge.capture,
                                       charge.publicId, charge.createdEpoch},
                                      result.message);
            if (result.outcome == ChannelOutcome::Unknown)
                return codedError(ErrorKind::Failed,
                                  QString::fromLatin1(ErrorCode::ChannelUnreachable),
                                  result.message); // the channel repeats its notice
        }
        const PaymentOutcome outcome =
            ChargeService(m_context, m_connection, m_replies).settleInFlight(charge, result);
        if (outcome.error.is(ErrorCode::RowsMoved))
            return NoticeVerdict::Unchanged; // another settler got there first
        if (!outcome.final())
            return outcome.error;
        // A request whose holder died still waits on its key: answer it too.
        IdempotentOperation keys(m_context, m_connection, m_replies, {});
        if (Result<int> answered =
                keys.answerSilentHolders(charge.publicId, outcome, charge.publicId);
            !answered)
            return answered.error();
        return NoticeVerdict::Applied;
    }
    const bool agrees =
        approved ? isApprovedState(charge.state)
                 : charge.state == PaymentState::Failed || charge.state == PaymentState::Canceled;
    // The answer that settled the charge may have carried no id of the
    // channel's: the notice's is kept then, and never replaces one.
    if (agrees && approved)
        if (Status kept = PaymentRepository(m_connection)
                              .keepFirstChannelReference(charge, notice.channelReference);
            !kept)
            return kept.error();
    return agrees ? NoticeVerdict::Unchanged : NoticeVerdict::Conflicting;
}

Result<bool> ChannelNotices::remember(const ChannelNotice &notice, NoticeVerdict verdict)
{
    Result<PgRows> inserted = m_connection.query(
        "INSERT INTO keel.channel_notifications (channel, notice_id, nonce, reference, outcome, "
        "  amount, currency, verdict) "
        "VALUES ($1, $2, nullif($3, ''), $4, $5, nullif($6, '-1')::bigint, nullif($7, ''), $8) "
        "ON CONFLICT (channel, notice_id) DO NOTHING",
        {notice.channel.toUtf8(), notice.noticeId.toUtf8(), notice.nonce.toUtf8(),
         notice.reference.toUtf8(),
         notice.outcome == ChannelOutcome::Approved ? "approved" : "failed",
         QByteArray::number(notice.amount), notice.currency.toUtf8(),
         noticeVerdictCode(verdict).toUtf8()});
    if (!inserted)
        return inserted.error();
    return inserted->affected() == 1;
}

} // namespace keel
