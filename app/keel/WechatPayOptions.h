#pragma once

#include "core/Result.h"
#include "core/payment/Channel.h"

#include <memory>

class QCommandLineParser;

namespace keel {
class WechatPayCertificates;
}

namespace keel::cli {

// `--channel wechatpay`: the merchant's number, AppID, API key and
// certificate, and the API's address. The platform certificates that verify
// its answers are --wechatpay-certificate, shared with the notify endpoint.
void addWechatPayChannelOptions(QCommandLineParser &parser);
Result<ChannelFactory> wechatpayOption(const QCommandLineParser &parser, int timeoutMs,
                                       std::shared_ptr<WechatPayCertificates> shared = {});

} // namespace keel::cli
