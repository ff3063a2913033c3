#pragma once

#include "core/Result.h"
#include "core/payment/Channel.h"

#include <QByteArray>

namespace keel {

// How keel talks to a channel that is its own process (keel channel-sim, or
// an adapter in front of a real acquirer): JSON over HTTP.
//
//   POST /v1/operations                        a ChannelRequest
//   GET  /v1/operations/<reference>/<operation> what the channel did with one
//   POST /v1/operations/<reference>/<operation>/close  never process it (关单)
//
// 200 carries a ChannelResult; 503 says "not processed, try later"; 404 to a
// GET says the channel never received that operation. A close answers 200
// with "closed" or with what the channel had already done; anything else
// promises nothing. A request that got no
// answer may have been acted on: the caller treats it as Unknown and asks
// later (补单).
namespace ChannelWire {

QByteArray encodeRequest(const ChannelRequest &request);
// An error names the first field that is missing or wrong.
Result<ChannelRequest> decodeRequest(const QByteArray &json);

QByteArray encodeResult(const ChannelResult &result);
// A body that is not a result reads as Unknown: the caller cannot tell what happened.
ChannelResult decodeResult(const QByteArray &json);

QByteArray operationPath(const QString &reference, const QString &operation);
QByteArray closePath(const QString &reference, const QString &operation);

} // namespace ChannelWire
} // namespace keel
