#pragma once

#include "core/net/HttpResponse.h"
#include "core/signing/ChannelKeys.h"

#include <memory>

namespace keel {

class LibpqConnection;
class ReplyRenderer;
struct HttpRequest;
struct PaymentContext;

// POST /v1/channels/alipay/notify, /v1/channels/wechatpay/notify and
// /v1/channels/stripe/webhook: each checks the channel's own signature
// exactly as the channel specifies it, then hands what it says to
// ChannelNotices, and answers the way the channel expects ("success" for
// Alipay, 204 for WeChat Pay, 200 for Stripe) so it stops repeating. A
// notification that fails its check is refused with the reason, counted in
// keel_channel_notifications_total, and changes nothing.
class ChannelNotifyEndpoints final {
public:
    ChannelNotifyEndpoints(const PaymentContext &context, const ReplyRenderer &replies,
                           std::shared_ptr<const ChannelKeys> keys);

    // Whether `path` is one of these endpoints.
    static bool handles(const QByteArray &path);
    HttpResponse handle(const HttpRequest &request);

private:
    HttpResponse alipay(const HttpRequest &request);
    HttpResponse wechatpay(const HttpRequest &request);
    HttpResponse stripe(const HttpRequest &request);

    const PaymentContext &m_context;
    const ReplyRenderer &m_replies;
    std::shared_ptr<const ChannelKeys> m_keys;
};

} // namespace keel
