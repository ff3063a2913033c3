#pragma once

#include <QString>

#include <functional>
#include <memory>

namespace keel {

class ConnectionSettings;

enum class ChannelOutcome {
    Approved,
    Declined, // the network said no; final
    Failed,   // definitely not processed (unavailable, rejected before processing)
    Unknown,  // the answer was lost: it may or may not have been processed
    NotFound, // query only: the network never received this operation
    Closed,   // keel closed the operation: the network refuses it for good
};

// The one spelling of each outcome: on the channel wire, in the simulated
// channel's record, in logs. A name keel does not know reads as Unknown.
QString channelOutcomeName(ChannelOutcome outcome);
ChannelOutcome channelOutcomeNamed(QStringView name);

struct ChannelRequest {
    QString reference = {}; // keel's id for the operation's object (ch_..., re_...)
    QString operation = {}; // authorize, capture, refund, void
    qint64 amount = 0;
    QString currency = {};
    QString source = {};
    bool capture = true; // authorize only: authorize and capture in one message (a sale)
    // The charge the operation belongs to: `reference` itself for authorize,
    // capture and void; the charge's id for a refund. Channels that name a
    // refund only within its trade (Alipay's out_trade_no + out_request_no)
    // need it to send, ask about or close the refund.
    QString chargeReference = {};
    // When keel created the charge (seconds since 1970; 0: not known). A
    // channel may reason from it about requests that could still be in flight.
    qint64 chargeCreatedEpoch = 0;
    // Whether this is certainly the first request for the operation: no
    // earlier copy (a retry, a takeover, the reconciler) can still be on its
    // way. Only callChannel knows it; everything else may be a repeat.
    bool firstAttempt = false;
    // The charge's amount (minor units), for channels that send it with each
    // refund (WeChat Pay's amount.total); 0: not known.
    qint64 chargeAmount = 0;

    // The charge's id, also for a request built before chargeReference was set.
    QString chargeId() const { return chargeReference.isEmpty() ? reference : chargeReference; }
};

struct ChannelResult {
    ChannelOutcome outcome = ChannelOutcome::Unknown;
    QString declineCode;
    QString message;
    // The channel's own id for what it approved (Alipay's trade_no, Stripe's
    // ch_...), when it gave one: statements may name a payment only by it.
    QString channelReference = {};
};

// Whether keel keeps a channel's own reference: one to 128 characters with no
// control characters. Anything else is dropped, never stored cut short, and
// never stops the payment's outcome from being recorded.
bool keepableChannelReference(const QString &reference);

// A card network or acquirer behind an adapter. Implementations must be safe
// to call from several threads, and idempotent per (reference, operation): a
// repeated request returns the first answer instead of acting twice.
class Channel {
public:
    virtual ~Channel() = default;
    virtual QString name() const = 0;
    // The channel whose statements report this one's payments and refunds
    // (keel.recon_channels): both simulators are "sim".
    virtual QString statementChannel() const = 0;
    virtual ChannelResult execute(const ChannelRequest &request) = 0;
    // What the network knows of an earlier operation (补单): `operation` is
    // the request that was (or may have been) sent; only the fields naming it
    // (reference, operation, chargeReference) are read.
    virtual ChannelResult query(const ChannelRequest &operation) = 0;
    // Closes an operation (关单) so that the network never processes it, even
    // when a request for it is still on its way. Answers Closed if the network
    // had not processed it, or what it did (Approved, Declined) if it had;
    // Unknown when the channel cannot promise either. An adapter for a network
    // that cannot refuse a late request must answer Unknown.
    virtual ChannelResult close(const ChannelRequest &operation) = 0;
};

// Makes the channel a process uses, given the process's database settings. The
// composition root (a command's main, keel dev, the console's demo) chooses it.
using ChannelFactory = std::function<std::shared_ptr<Channel>(const ConnectionSettings &)>;

} // namespace keel
