#include "devkit/sim/AlipayGatewaySim.h"

#include "core/ServiceLog.h"
#include "core/api/RequestParams.h"
#include "core/channel/SimulatedChannel.h"
#include "core/money/Currency.h"
#include "core/net/HttpRequest.h"
#include "core/net/HttpResponse.h"
#include "core/signing/AlipaySignature.h"
#include "devkit/sim/SimRecord.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QTimeZone>

namespace keel {
namespace {

const Currency Yuan{QStringLiteral("CNY"), 2, 0};

QJsonObject success()
{
    return {{QStringLiteral("code"), QStringLiteral("10000")},
            {QStringLiteral("msg"), QStringLiteral("Success")}};
}

QJsonObject failure(const char *code, const char *msg, const char *subCode, const QString &subMsg)
{
    return {{QStringLiteral("code"), QString::fromLatin1(code)},
            {QStringLiteral("msg"), QString::fromLatin1(msg)},
            {QStringLiteral("sub_code"), QString::fromLatin1(subCode)},
            {QStringLiteral("sub_msg"), subMsg}};
}

QJsonObject businessFailure(const char *subCode, const QString &subMsg)
{
    return failure("40004", "Business Failed", subCode, subMsg);
}

QJsonObject unavailable()
{
    return failure("20000", "Service Currently Unavailable", "ACQ.SYSTEM_ERROR",
                   QStringLiteral("simulated: the network is busy"));
}

QString beijingNow()
{
    return QDateTime::currentDateTimeUtc()
        .toTimeZone(QTimeZone(8 * 3600))
        .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QJsonObject with(QJsonObject fields, const QJsonObject &more)
{
    for (auto it = more.begin(); it != more.end(); ++it)
        fields.insert(it.key(), it.value());
    return fields;
}

} // namespace

AlipayGatewaySim::AlipayGatewaySim(AlipayGatewayOptions options, SimulatedChannel &channel,
                                   ConnectionSettings settings, Announce announce)
    : m_options(std::move(options)), m_channel(channel), m_settings(std::move(settings)),
      m_announce(std::move(announce))
{}

HttpResponse AlipayGatewaySim::handle(const HttpRequest &request)
{
    Result<RequestParams> form = RequestParams::fromForm(request.body);
    const QString method = form ? form->valueOr(QStringLiteral("method")) : QString();
    if (!form || method.isEmpty())
        return signedAnswer(QStringLiteral("error"),
                            failure("40001", "Missing Required Arguments", "isv.missing-method",
                                    QStringLiteral("a form with `method` is expected")));
    const QJsonObject biz =
        QJsonDocument::fromJson(form->valueOr(QStringLiteral("biz_content")).toUtf8()).object();
    const std::optional<QJsonObject> refusal = rejection(*form);
    const std::optional<QJsonObject> fields = refusal ? refusal : answer(method, biz);
    // One line per call, so a test can count what reached "Alipay".
    ServiceLog::info(
        QStringLiteral("alipay call %1 %2 %3: %4 %5")
            .arg(method, biz.value(QStringLiteral("out_trade_no")).toString(),
                 biz.value(QStringLiteral("out_request_no")).toString(),
                 fields ? fields->value(QStringLiteral("code")).toString() : QStringLiteral("lost"),
                 fields ? fields->value(QStringLiteral("sub_code")).toString() : QString())
            .simplified());
    if (!fields) {
        HttpResponse lost;
        lost.withheld = true;
        return lost;
    }
    return signedAnswer(method, *fields);
}

std::optional<QJsonObject> AlipayGatewaySim::rejection(const RequestParams &form) const
{
    if (form.valueOr(QStringLiteral("app_id")) != m_options.appId)
        return failure("40002", "Invalid Arguments", "isv.invalid-app-id",
                       QStringLiteral("unknown app_id"));
    const QByteArray::FromBase64Result sign = QByteArray::fromBase64Encoding(
        form.valueOr(QStringLiteral("sign")).toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
    if (form.valueOr(QStringLiteral("sign_type")) != QLatin1String("RSA2") || !sign ||
        !m_options.appPublicKey.verifySha256(AlipaySignature::requestSignString(form.entries()),
                                             *sign))
        return failure("40002", "Invalid Arguments", "isv.invalid-signature",
                       QStringLiteral("the request's sign does not verify"));
    return std::nullopt;
}

std::optional<QJsonObject> AlipayGatewaySim::answer(const QString &method, const QJsonObject &biz)
{
    if (method == QLatin1String("alipay.trade.pay"))
        return pay(biz);
    if (method == QLatin1String("alipay.trade.query"))
        return tradeQuery(biz);
    if (method == QLatin1String("alipay.trade.cancel"))
        return cancel(biz);
    if (method == QLatin1String("alipay.trade.refund"))
        return refund(biz);
    if (method == QLatin1String("alipay.trade.fastpay.refund.query"))
        return refundQuery(biz);
    return failure("40002", "Invalid Arguments", "isv.invalid-method",
                   QStringLiteral("the simulator does not serve %1").arg(method));
}

std::optional<QJsonObject> AlipayGatewaySim::pay(const QJsonObject &biz)
{
    const QString outTradeNo = biz.value(QStringLiteral("out_trade_no")).toString();
    const QString total = biz.value(QStringLiteral("total_amount")).toString();
    const Result<qint64> amount = parseMajorUnits(total, Yuan, QStringLiteral("total_amount"));
    if (outTradeNo.isEmpty() || !amount || *amount <= 0 ||
        biz.value(QStringLiteral("auth_code")).toString().isEmpty())
        return failure("40002", "Invalid Arguments", "ACQ.INVALID_PARAMETER",
                       QStringLiteral("out_trade_no, auth_code and total_amount are required"));
    const ChannelRequest request{outTradeNo,
                                 QStringLiteral("authorize"),
                                 *amount,
                                 Yuan.code,
                                 biz.value(QStringLiteral("auth_code")).toString(),
                                 true,
                                 outTradeNo};
    // Alipay answers a pay request for a trade already paid with a refusal
    // that says so, not with the first answer again.
    if (m_channel.query(request).outcome == ChannelOutcome::Approved)
        return businessFailure("ACQ.TRADE_HAS_SUCCESS", QStringLiteral("the trade is paid"));
    const ChannelResult result = m_channel.execute(request);
    if (m_announce)
        m_announce(request,
                   result.outcome == ChannelOutcome::Unknown ? m_channel.query(request) : result);
    switch (result.outcome) {
    case ChannelOutcome::Approved:
        return with(success(), {{QStringLiteral("out_trade_no"), outTradeNo},
                                {QStringLiteral("trade_no"), result.channelReference},
                                {QStringLiteral("total_amount"), total},
                                {QStringLiteral("receipt_amount"), total},
                                {QStringLiteral("buyer_pay_amount"), total},
                                {QStringLiteral("gmt_payment"), beijingNow()}});
    case ChannelOutcome::Declined:
        return result.declineCode == QLatin1String("insufficient_funds")
                   ? businessFailure("ACQ.BUYER_BALANCE_NOT_ENOUGH", result.message)
                   : businessFailure("ACQ.PAYMENT_FAIL", result.message);
    case ChannelOutcome::Closed:
        return businessFailure("ACQ.TRADE_HAS_CLOSE", QStringLiteral("the trade is closed"));
    case ChannelOutcome::Unknown:
        return std::nullopt;
    case ChannelOutcome::Failed:
    case ChannelOutcome::NotFound:
        break;
    }
    return unavailable();
}

QJsonObject AlipayGatewaySim::tradeQuery(const QJsonObject &biz)
{
    const QString outTradeNo = biz.value(QStringLiteral("out_trade_no")).toString();
    const ChannelResult known = m_channel.query({outTradeNo, QStringLiteral("authorize")});
    const std::optional<SimRecord> record =
        simRecord(m_settings, outTradeNo, QStringLiteral("authorize"));
    const QJsonObject trade{
        {QStringLiteral("out_trade_no"), outTradeNo},
        {QStringLiteral("total_amount"),
         record ? formatMajorUnits(record->amount, Yuan) : QStringLiteral("0.00")}};
    switch (known.outcome) {
    case ChannelOutcome::Approved:
        return with(
            with(success(), trade),
            {{QStringLiteral("trade_status"), QStringLiteral("TRADE_SUCCESS")},
             {QStringLiteral("trade_no"), known.channelReference},
             {QStringLiteral("buyer_pay_amount"), trade.value(QStringLiteral("total_amount"))},
             {QStringLiteral("send_pay_date"), beijingNow()}});
    case ChannelOutcome::Declined:
    case ChannelOutcome::Closed:
    case ChannelOutcome::Failed:
        return with(with(success(), trade),
                    {{QStringLiteral("trade_status"), QStringLiteral("TRADE_CLOSED")},
                     {QStringLiteral("buyer_pay_amount"), QStringLiteral("0.00")}});
    case ChannelOutcome::NotFound:
        return businessFailure("ACQ.TRADE_NOT_EXIST", QStringLiteral("no such trade"));
    case ChannelOutcome::Unknown:
        break;
    }
    return unavailable();
}

QJsonObject AlipayGatewaySim::cancel(const QJsonObject &biz)
{
    const QString outTradeNo = biz.value(QStringLiteral("out_trade_no")).toString();
    QJsonObject cancelled = with(success(), {{QStringLiteral("out_trade_no"), outTradeNo},
                                             {QStringLiteral("retry_flag"), QStringLiteral("N")}});
    const ChannelRequest trade{outTradeNo, QStringLiteral("authorize")};
    const ChannelOutcome before = m_channel.query(trade).outcome;
    // A trade Alipay never saw: success without `action`, and nothing
    // stops a pay request still on its way from making one afterwards.
    if (before == ChannelOutcome::NotFound)
        return cancelled;
    if (before == ChannelOutcome::Unknown)
        return with(unavailable(), {{QStringLiteral("retry_flag"), QStringLiteral("Y")}});
    switch (m_channel.close(trade).outcome) {
    case ChannelOutcome::Closed:
    case ChannelOutcome::Declined:
        cancelled.insert(QStringLiteral("action"), QStringLiteral("close"));
        return cancelled;
    case ChannelOutcome::Approved:
        // A paid trade past the day's cancel window: Alipay will not undo it.
        return businessFailure("ACQ.TRADE_HAS_SUCCESS", QStringLiteral("the trade is paid"));
    case ChannelOutcome::Failed:
    case ChannelOutcome::NotFound:
    case ChannelOutcome::Unknown:
        break;
    }
    return with(unavailable(), {{QStringLiteral("retry_flag"), QStringLiteral("Y")}});
}

std::optional<QJsonObject> AlipayGatewaySim::refund(const QJsonObject &biz)
{
    const QString outTradeNo = biz.value(QStringLiteral("out_trade_no")).toString();
    const QString requestNo = biz.value(QStringLiteral("out_request_no")).toString();
    const QString asked = biz.value(QStringLiteral("refund_amount")).toString();
    const Result<qint64> amount = parseMajorUnits(asked, Yuan, QStringLiteral("refund_amount"));
    if (outTradeNo.isEmpty() || requestNo.isEmpty() || !amount || *amount <= 0)
        return failure(
            "40002", "Invalid Arguments", "ACQ.INVALID_PARAMETER",
            QStringLiteral("out_trade_no, out_request_no and refund_amount are required"));
    const ChannelResult trade = m_channel.query({outTradeNo, QStringLiteral("authorize")});
    if (trade.outcome == ChannelOutcome::Unknown)
        return unavailable();
    if (trade.outcome != ChannelOutcome::Approved)
        return businessFailure("ACQ.TRADE_NOT_EXIST", QStringLiteral("no paid trade to refund"));
    const ChannelRequest request{requestNo, QStringLiteral("refund"), *amount, Yuan.code, {}, true,
                                 outTradeNo};
    // A repeat of a refund Alipay made moves no money again: fund_change=N.
    const bool repeat = m_channel.query(request).outcome == ChannelOutcome::Approved;
    const ChannelResult result = m_channel.execute(request);
    switch (result.outcome) {
    case ChannelOutcome::Approved:
        return with(success(), {{QStringLiteral("out_trade_no"), outTradeNo},
                                {QStringLiteral("trade_no"), trade.channelReference},
                                {QStringLiteral("refund_fee"), asked},
                                {QStringLiteral("fund_change"),
                                 repeat ? QStringLiteral("N") : QStringLiteral("Y")}});
    case ChannelOutcome::Declined:
    case ChannelOutcome::Closed:
        return businessFailure("ACQ.TRADE_NOT_ALLOW_REFUND", result.message);
    case ChannelOutcome::Unknown:
        return std::nullopt;
    case ChannelOutcome::Failed:
    case ChannelOutcome::NotFound:
        break;
    }
    return unavailable();
}

QJsonObject AlipayGatewaySim::refundQuery(const QJsonObject &biz)
{
    const QString outTradeNo = biz.value(QStringLiteral("out_trade_no")).toString();
    const QString requestNo = biz.value(QStringLiteral("out_request_no")).toString();
    const ChannelResult known = m_channel.query({requestNo, QStringLiteral("refund")});
    if (known.outcome == ChannelOutcome::Unknown)
        return unavailable();
    QJsonObject fields = with(success(), {{QStringLiteral("out_trade_no"), outTradeNo},
                                          {QStringLiteral("out_request_no"), requestNo}});
    const std::optional<SimRecord> record =
        simRecord(m_settings, requestNo, QStringLiteral("refund"));
    // Alipay answers a refund it does not have (or refused) with no refund data.
    if (known.outcome != ChannelOutcome::Approved || !record)
        return fields;
    return with(fields, {{QStringLiteral("refund_amount"), formatMajorUnits(record->amount, Yuan)},
                         {QStringLiteral("refund_status"), QStringLiteral("REFUND_SUCCESS")}});
}

HttpResponse AlipayGatewaySim::signedAnswer(const QString &method, const QJsonObject &fields) const
{
    const QByteArray node = QJsonDocument(fields).toJson(QJsonDocument::Compact);
    const QByteArray nodeName = method == QLatin1String("error")
                                    ? QByteArray("error_response")
                                    : QString(method).replace(u'.', u'_').toUtf8() + "_response";
    const Result<QByteArray> signature = m_options.alipayKey.signSha256(node);
    QByteArray body = "{\"" + nodeName + "\":" + node;
    if (signature)
        body += ",\"sign\":\"" + signature->toBase64() + '"';
    body += '}';
    HttpResponse response = jsonResponse(200, body);
    response.setHeader("Content-Type", "text/html;charset=utf-8");
    return response;
}

} // namespace keel
