#pragma once

#include "core/db/ConnectionSettings.h"
#include "core/payment/Channel.h"

namespace keel {

struct SimulatedChannelConfig {
    int latencyMs = 0;
    double declineRate = 0;       // share of approvals turned into declines
    double errorRate = 0;         // share answered "unavailable" without processing
    double ambiguousRate = 0;     // share processed but whose answer is lost
    double refundFailureRate = 0; // share of refunds the network refuses
};

// The channel keel ships for demos and tests. Out of the box it answers at
// once and approves everything except Stripe-style test sources that ask to be
// declined (tok_chargeDeclined, tok_chargeDeclinedInsufficientFunds, ...),
// and refuses every refund of a charge made with tok_refundFails (so tests and
// the demo can produce compensations that fail, and suspense cases).
// What it processed is kept in sim_channel_operations, so any gateway process
// can later ask it about an operation whose answer was lost.
class SimulatedChannel final : public Channel {
public:
    SimulatedChannel(ConnectionSettings settings, SimulatedChannelConfig config);

    QString name() const override { return QStringLiteral("simulated"); }
    QString statementChannel() const override { return QStringLiteral("sim"); }
    ChannelResult execute(const ChannelRequest &request) override;
    ChannelResult query(const ChannelRequest &operation) override;
    ChannelResult close(const ChannelRequest &operation) override;

    const SimulatedChannelConfig &config() const { return m_config; }

    // The simulated network's own id for an operation it approved, derived
    // from keel's reference so that its statements name the same id.
    static QString ownReference(const QString &reference, const QString &operation);

private:
    // The first answer to (request.reference, request.operation) is the only
    // one: `decided` if this is the first, else the earlier one. A close is a
    // request of amount 0. The record keeps the currency and whether an
    // authorization was a sale, for the channel's own statement.
    ChannelResult firstAnswer(const ChannelRequest &request, const ChannelResult &decided);

    ConnectionSettings m_settings;
    SimulatedChannelConfig m_config;
};

// A factory for the simulated channel. Its connections are its own: it stands
// for a remote system and must never run inside one of the gateway's
// transactions.
ChannelFactory simulatedChannel(SimulatedChannelConfig config = {});

} // namespace keel
