#pragma once

#include "core/Result.h"
#include "core/payment/Channel.h"

#include <QString>

namespace keel {

class LibpqConnection;
class ReplyRenderer;
struct PaymentContext;

// What a channel said in a (verified) asynchronous notification.
struct ChannelNotice {
    QString channel;          // alipay, wechatpay, stripe
    QString noticeId;         // the channel's id for this notification; repeats carry the same
    QString nonce;            // WeChat Pay's, checked for reuse; empty for the others
    QString reference;        // keel's charge id, as keel sent it to the channel
    QString channelReference; // the channel's own id for the payment, when it gave one
    ChannelOutcome outcome = ChannelOutcome::Approved; // Approved or Failed
    qint64 amount = -1;                                // minor units; -1 when not said
    QString currency;                                  // upper case; empty when not said
};

// What keel did with a notice. The channel is told "received" for every
// verdict but ReplayedNonce (a replay is refused); the others are recorded
// for the reconciliation.
enum class NoticeVerdict {
    Applied,        // the charge was in flight and is now settled by it (补单)
    Unchanged,      // the charge was already where the notice says, or it is a repeat
    Conflicting,    // the charge is final and the channel says otherwise: for a person
    UnknownCharge,  // no charge has this reference
    AmountMismatch, // the amount or currency differs from the charge's: not applied
    ReplayedNonce,  // a WeChat Pay nonce seen before: refused
};

QString noticeVerdictCode(NoticeVerdict verdict);

// Applies channel notifications to payments, idempotently: the same notice
// twice changes nothing the second time.
class ChannelNotices final {
public:
    ChannelNotices(const PaymentContext &context, LibpqConnection &connection,
                   const ReplyRenderer &replies);

    Result<NoticeVerdict> apply(const ChannelNotice &notice);

private:
    Result<NoticeVerdict> judge(const ChannelNotice &notice);
    // Keeps the notice; false when the channel sent this notice before.
    Result<bool> remember(const ChannelNotice &notice, NoticeVerdict verdict);

    const PaymentContext &m_context;
    LibpqConnection &m_connection;
    const ReplyRenderer &m_replies;
};

} // namespace keel
