#include "core/api/ChannelNotifyEndpoints.h"

#include "core/api/RequestParams.h"
#include "core/db/LibpqConnection.h"
#include "core/db/ThreadConnections.h"
#include "core/metrics/Metrics.h"
#include "core/net/HttpRequest.h"
#include "core/payment/ChannelNotices.h"
#include "core/payment/PaymentContext.h"
#include "core/signing/AesGcm.h"
#include "core/signing/AlipaySignature.h"
#include "core/signing/StripeSignature.h"
#include "core/signing/WechatPaySignature.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>

namespace keel {
namespace {

constexpr int WindowSeconds = 300;

// How each channel wants to be answered: accepted (it stops repeating) or
// refused with a reason (it repeats later, or gives up).
struct Answering {
    QString channel;

    HttpResponse accepted() const
    {
        if (channel == QLatin1String("alipay"))
            return textResponse(200, "success");
        if (channel == QLatin1String("wechatpay"))
            return HttpResponse{204, {}, {}};
        return jsonResponse(200, "{\"received\":true}");
    }

    // `reason` is counted; `message` goes back to the channel.
    HttpResponse refused(int status, const QString &reason, const QString &message) const
    {
        Metrics::instance().countChannelNotification(channel, reason);
        if (channel == QLatin1String("alipay"))
            return textResponse(status, "failure");
        QJsonObject body;
        if (channel == QLatin1String("wechatpay"))
            body = {{QStringLiteral("code"), QStringLiteral("FAIL")},
                    {QStringLiteral("message"), message}};
        else
            body = {{QStringLiteral("error"),
                     QJsonObject{{QStringLiteral("type"), QStringLiteral("invalid_request_error")},
                                 {QStringLiteral("code"), reason},
                                 {QStringLiteral("message"), message}}}};
        return jsonResponse(status, QJsonDocument(body).toJson(QJsonDocument::Compact));
    }

    HttpResponse rejected(SignatureVerdict verdict) const
    {
        return refused(verdict == SignatureVerdict::Malformed ? 400 : 401, verdictCode(verdict),
                       verdictMessage(verdict));
    }

    static HttpResponse textResponse(int status, const QByteArray &text)
    {
        HttpResponse response{status, {}, text};
        response.setHeader("Content-Type", "text/plain; charset=utf-8");
        return response;
    }
};

qint64 now()
{
    return QDateTime::currentSecsSinceEpoch();
}

QString textOf(const QJsonObject &object, const char *key)
{
    return object.value(QLatin1String(key)).toString();
}

} // namespace

ChannelNotifyEndpoints::ChannelNotifyEndpoints(const PaymentContext &context,
                                               const ReplyRenderer &replies,
                                               std::shared_ptr<const ChannelKeys> keys)
    : m_context(context), m_replies(replies),
      m_keys(keys ? std::move(keys) : std::make_shared<const ChannelKeys>())
{}

bool ChannelNotifyEndpoints::handles(const QByteArray &path)
{
    return path.startsWith("/v1/channels/");
}

HttpResponse ChannelNotifyEndpoints::handle(const HttpRequest &request)
{
    if (request.path == "/v1/channels/alipay/notify")
        return alipay(request);
    if (request.path == "/v1/channels/wechatpay/notify")
        return wechatpay(request);
    if (request.path == "/v1/channels/stripe/webhook")
        return stripe(request);
    return Answering{QStringLiteral("unknown")}.refused(
        404, QStringLiteral("unknown_channel"),
        QStringLiteral("keel takes notifications from alipay, wechatpay and stripe only"));
}

namespace {

// Hands a verified notice to the payments and answers the channel.
HttpResponse deliver(const PaymentContext &context, const ReplyRenderer &replies,
                     const Answering &answering, const ChannelNotice &notice)
{
    Result<LibpqConnection *> connection = ThreadConnections::get(context.settings);
    if (!connection)
        return answering.refused(503, QStringLiteral("unavailable"),
                                 QStringLiteral("keel cannot reach its database; send it again"));
    Result<NoticeVerdict> verdict = ChannelNotices(context, **connection, replies).apply(notice);
    if (!verdict && verdict.error().is(ErrorCode::ApprovalMayBeUndone))
        return answering.refused(503, QStringLiteral("in_doubt"),
                                 QStringLiteral("keel asked to reverse this payment and does not "
                                                "know yet whether it was; send it again"));
    if (!verdict)
        return answering.refused(503, QStringLiteral("unavailable"),
                                 QStringLiteral("keel could not record the notification; send "
                                                "it again"));
    if (*verdict == NoticeVerdict::ReplayedNonce)
        return answering.refused(401, noticeVerdictCode(*verdict),
                                 QStringLiteral("this nonce was used before: a replay"));
    // Everything else was received and recorded (an unknown charge or a
    // mismatch waits for a person); repeating it would change nothing.
    Metrics::instance().countChannelNotification(answering.channel, noticeVerdictCode(*verdict));
    return answering.accepted();
}

} // namespace

HttpResponse ChannelNotifyEndpoints::alipay(const HttpRequest &request)
{
    const Answering answering{QStringLiteral("alipay")};
    if (!m_keys->alipayPublicKey)
        return answering.refused(404, QStringLiteral("not_configured"),
                                 QStringLiteral("no Alipay public key is configured"));
    Result<RequestParams> form = RequestParams::fromForm(request.body);
    if (!form)
        return answering.rejected(SignatureVerdict::Malformed);
    const SignatureVerdict checked =
        AlipaySignature::verify(form->entries(), *m_keys->alipayPublicKey);
    if (checked != SignatureVerdict::Valid)
        return answering.rejected(checked);
    const QString status = form->valueOr(QStringLiteral("trade_status"));
    // A domestic trade is in yuan; a cross-border one names its pricing
    // currency in trans_currency.
    const QString currencyCode =
        form->valueOr(QStringLiteral("trans_currency"), QStringLiteral("CNY")).toUpper();
    const std::optional<Currency> currency = m_context.currencies.find(currencyCode);
    Result<qint64> amount = currency
                                ? parseMajorUnits(form->valueOr(QStringLiteral("total_amount")),
                                                  *currency, QStringLiteral("total_amount"))
                                : Result<qint64>(fieldError(QStringLiteral("trans_currency"),
                                                            QStringLiteral("parameter_invalid"),
                                                            QStringLiteral("unknown currency")));
    const QString reference = form->valueOr(QStringLiteral("out_trade_no"));
    if (reference.isEmpty() || form->valueOr(QStringLiteral("notify_id")).isEmpty() || !amount)
        return answering.refused(400, QStringLiteral("malformed"),
                                 QStringLiteral("notify_id, out_trade_no and total_amount (in "
                                                "trans_currency, default CNY) are required"));
    if (status != QLatin1String("TRADE_SUCCESS") && status != QLatin1String("TRADE_FINISHED") &&
        status != QLatin1String("TRADE_CLOSED"))
        return answering.accepted(); // WAIT_BUYER_PAY and the like: nothing to settle yet
    ChannelNotice notice;
    notice.channel = answering.channel;
    notice.noticeId = form->valueOr(QStringLiteral("notify_id"));
    notice.reference = reference;
    notice.channelReference = form->valueOr(QStringLiteral("trade_no"));
    notice.outcome =
        status == QLatin1String("TRADE_CLOSED") ? ChannelOutcome::Failed : ChannelOutcome::Approved;
    notice.amount = *amount;
    notice.currency = currency->code;
    return deliver(m_context, m_replies, answering, notice);
}

HttpResponse ChannelNotifyEndpoints::wechatpay(const HttpRequest &request)
{
    const Answering answering{QStringLiteral("wechatpay")};
    if (!m_keys->wechatpayCertificates || m_keys->wechatpayApiV3Key.isEmpty())
        return answering.refused(404, QStringLiteral("not_configured"),
                                 QStringLiteral("no WeChat Pay certificate or APIv3 key is "
                                                "configured"));
    const WechatPayHeaders headers{request.header("wechatpay-timestamp").value_or(QByteArray()),
                                   request.header("wechatpay-nonce").value_or(QByteArray()),
                                   request.header("wechatpay-serial").value_or(QByteArray()),
                                   request.header("wechatpay-signature").value_or(QByteArray())};
    const SignatureVerdict checked = WechatPaySignature::verify(
        headers, request.body, m_keys->wechatpayCertificates->current(), now(), WindowSeconds);
    if (checked != SignatureVerdict::Valid)
        return answering.rejected(checked);
    const QJsonObject event = QJsonDocument::fromJson(request.body).object();
    const QJsonObject resource = event.value(QStringLiteral("resource")).toObject();
    if (textOf(resource, "algorithm") != QLatin1String("AEAD_AES_256_GCM"))
        return answering.refused(400, QStringLiteral("malformed"),
                                 QStringLiteral("resource.algorithm must be AEAD_AES_256_GCM"));
    Result<QByteArray> plaintext = AesGcm::open(
        m_keys->wechatpayApiV3Key, textOf(resource, "nonce").toUtf8(),
        textOf(resource, "associated_data").toUtf8(), textOf(resource, "ciphertext").toUtf8());
    if (!plaintext)
        return answering.refused(400, QStringLiteral("decrypt_failed"), plaintext.error().message);
    const QJsonObject transaction = QJsonDocument::fromJson(*plaintext).object();
    const QString state = textOf(transaction, "trade_state");
    const QJsonObject amount = transaction.value(QStringLiteral("amount")).toObject();
    ChannelNotice notice;
    notice.channel = answering.channel;
    notice.noticeId = textOf(event, "id");
    notice.nonce = QString::fromLatin1(headers.nonce);
    notice.reference = textOf(transaction, "out_trade_no");
    notice.channelReference = textOf(transaction, "transaction_id");
    notice.amount = amount.value(QStringLiteral("total")).toInteger(-1);
    notice.currency = textOf(amount, "currency");
    if (notice.noticeId.isEmpty() || notice.reference.isEmpty() || notice.amount < 0)
        return answering.refused(400, QStringLiteral("malformed"),
                                 QStringLiteral("id, out_trade_no and amount.total are required"));
    if (state == QLatin1String("SUCCESS"))
        notice.outcome = ChannelOutcome::Approved;
    else if (state == QLatin1String("CLOSED") || state == QLatin1String("PAYERROR") ||
             state == QLatin1String("REVOKED"))
        notice.outcome = ChannelOutcome::Failed;
    else
        return answering.accepted(); // NOTPAY, USERPAYING: nothing to settle yet
    return deliver(m_context, m_replies, answering, notice);
}

HttpResponse ChannelNotifyEndpoints::stripe(const HttpRequest &request)
{
    const Answering answering{QStringLiteral("stripe")};
    if (m_keys->stripeWebhookSecrets.isEmpty())
        return answering.refused(404, QStringLiteral("not_configured"),
                                 QStringLiteral("no Stripe webhook secret is configured"));
    const SignatureVerdict checked =
        StripeSignature::verify(request.header("stripe-signature").value_or(QByteArray()),
                                request.body, m_keys->stripeWebhookSecrets, now(), WindowSeconds);
    if (checked != SignatureVerdict::Valid)
        return answering.rejected(checked);
    const QJsonObject event = QJsonDocument::fromJson(request.body).object();
    const QString type = textOf(event, "type");
    if (type != QLatin1String("charge.succeeded") && type != QLatin1String("charge.failed"))
        return answering.accepted(); // keel acts on a charge's outcome only
    const QJsonObject charge =
        event.value(QStringLiteral("data")).toObject().value(QStringLiteral("object")).toObject();
    ChannelNotice notice;
    notice.channel = answering.channel;
    notice.noticeId = textOf(event, "id");
    // keel sends its own charge id to Stripe as metadata[keel_reference].
    notice.reference =
        textOf(charge.value(QStringLiteral("metadata")).toObject(), "keel_reference");
    notice.channelReference = textOf(charge, "id");
    notice.amount = charge.value(QStringLiteral("amount")).toInteger(-1);
    notice.currency = textOf(charge, "currency").toUpper();
    notice.outcome = type == QLatin1String("charge.succeeded") ? ChannelOutcome::Approved
                                                               : ChannelOutcome::Failed;
    if (notice.noticeId.isEmpty() || notice.reference.isEmpty() || notice.amount < 0)
        return answering.refused(400, QStringLiteral("malformed"),
                                 QStringLiteral("id, data.object.metadata.keel_reference and "
                                                "data.object.amount are required"));
    return deliver(m_context, m_replies, answering, notice);
}

} // namespace keel
