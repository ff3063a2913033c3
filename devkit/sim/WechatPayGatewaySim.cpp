#include "devkit/sim/WechatPayGatewaySim.h"

#include "core/ServiceLog.h"
#include "core/channel/SimulatedChannel.h"
#include "core/channel/WechatPayApi.h"
#include "core/net/HttpRequest.h"
#include "core/net/HttpResponse.h"
#include "core/signing/AesGcm.h"
#include "core/signing/WechatPaySignature.h"
#include "devkit/sim/SimRecord.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QTimeZone>
#include <QUrl>

#include <cstdlib>

namespace keel {
namespace {

const QString Yuan = QStringLiteral("CNY");
const QByteArray OrderPrefix = "/v3/pay/transactions/out-trade-no/";
const QByteArray RefundPrefix = "/v3/refund/domestic/refunds";

QJsonObject error(const char *code, const QString &message)
{
    return {{QStringLiteral("code"), QString::fromLatin1(code)},
            {QStringLiteral("message"), message}};
}

QString beijingNow()
{
    return QDateTime::currentDateTimeUtc().toTimeZone(QTimeZone(8 * 3600)).toString(Qt::ISODate);
}

qint64 amountOf(const QJsonObject &body, const char *field)
{
    const QJsonValue value =
        body.value(QStringLiteral("amount")).toObject().value(QLatin1String(field));
    return value.isDouble() ? qint64(value.toDouble()) : 0;
}

} // namespace

WechatPayGatewaySim::WechatPayGatewaySim(WechatPayGatewayOptions options, SimulatedChannel &channel,
                                         ConnectionSettings settings)
    : m_options(std::move(options)), m_channel(channel), m_settings(std::move(settings))
{}

// The channel's "unavailable": nothing was done.
WechatPayGatewaySim::Answer WechatPayGatewaySim::busy()
{
    return {500, error("SYSTEM_ERROR", QStringLiteral("simulated: the network is busy"))};
}

bool WechatPayGatewaySim::answerLost() const
{
    const double rate = m_channel.config().ambiguousRate;
    return rate > 0 && QRandomGenerator::global()->generateDouble() < rate;
}

HttpResponse WechatPayGatewaySim::handle(const HttpRequest &request)
{
    const QJsonObject body = QJsonDocument::fromJson(request.body).object();
    const std::optional<Answer> refusal = rejection(request);
    const std::optional<Answer> answered = refusal ? refusal : answer(request, body);
    // One line per request, so a test can count what reached "WeChat Pay".
    ServiceLog::info(
        QStringLiteral("wechatpay call %1 %2: %3 %4")
            .arg(QString::fromLatin1(request.method), QString::fromUtf8(request.path),
                 answered ? QString::number(answered->status) : QStringLiteral("lost"),
                 answered ? answered->fields.value(QStringLiteral("code")).toString() : QString())
            .simplified());
    if (!answered) {
        HttpResponse lost;
        lost.withheld = true;
        return lost;
    }
    return signedAnswer(*answered);
}

std::optional<WechatPayGatewaySim::Answer>
WechatPayGatewaySim::rejection(const HttpRequest &request) const
{
    const std::optional<WechatPayApi::Authorization> authorization =
        WechatPayApi::readAuthorization(request.header("authorization").value_or(QByteArray()));
    if (!authorization || authorization->mchid != m_options.mchid)
        return Answer{401, error("SIGN_ERROR", QStringLiteral("no Authorization from this mchid"))};
    const QByteArray url =
        request.query.isEmpty() ? request.path : request.path + '?' + request.query;
    const QByteArray::FromBase64Result signature = QByteArray::fromBase64Encoding(
        authorization->signature, QByteArray::AbortOnBase64DecodingErrors);
    const bool fresh = std::llabs(QDateTime::currentSecsSinceEpoch() -
                                  authorization->timestamp.toLongLong()) <= 300;
    if (QString::fromLatin1(authorization->serial).toUpper() !=
            m_options.merchantCertificate.certificateSerial() ||
        !fresh || !signature ||
        !m_options.merchantCertificate.verifySha256(
            WechatPayApi::requestMessage(request.method, url, authorization->timestamp,
                                         authorization->nonce, request.body),
            *signature))
        return Answer{401, error("SIGN_ERROR", QStringLiteral("the signature does not verify"))};
    return std::nullopt;
}

std::optional<WechatPayGatewaySim::Answer> WechatPayGatewaySim::answer(const HttpRequest &request,
                                                                       const QJsonObject &body)
{
    const bool post = request.method == "POST";
    if (post && request.path == "/v3/pay/transactions/codepay")
        return pay(body);
    if (post && request.path == RefundPrefix)
        return refund(body);
    if (request.path.startsWith(OrderPrefix)) {
        QByteArray rest = request.path.mid(OrderPrefix.size());
        if (post && rest.endsWith("/reverse")) {
            const Answer reversed = reverse(QUrl::fromPercentEncoding(rest.chopped(8)), body);
            // A reverse carried out whose answer is lost, as the sim loses a
            // payment's: keel cannot tell it from one still on its way.
            if (reversed.status == 200 && answerLost())
                return std::nullopt;
            return reversed;
        }
        if (!post && !rest.contains('/'))
            return tradeQuery(QUrl::fromPercentEncoding(rest));
    }
    if (!post && request.path == "/v3/certificates" && !m_options.apiV3Key.isEmpty())
        return certificates();
    if (!post && request.path.startsWith(QByteArray(RefundPrefix + '/')))
        return refundQuery(QUrl::fromPercentEncoding(request.path.mid(RefundPrefix.size() + 1)));
    return Answer{404, error("RESOURCE_NOT_EXISTS",
                             QStringLiteral("the simulator does not serve this request"))};
}

QJsonObject WechatPayGatewaySim::order(const QString &outTradeNo, const QString &state,
                                       const QString &transaction, qint64 total) const
{
    QJsonObject fields{
        {QStringLiteral("mchid"), m_options.mchid},
        {QStringLiteral("out_trade_no"), outTradeNo},
        {QStringLiteral("trade_type"), QStringLiteral("MICROPAY")},
        {QStringLiteral("trade_state"), state},
        {QStringLiteral("amount"),
         QJsonObject{{QStringLiteral("total"), total},
                     {QStringLiteral("payer_total"), state == QLatin1String("SUCCESS") ? total : 0},
                     {QStringLiteral("currency"), Yuan},
                     {QStringLiteral("payer_currency"), Yuan}}}};
    if (!transaction.isEmpty()) {
        fields.insert(QStringLiteral("transaction_id"), transaction);
        fields.insert(QStringLiteral("success_time"), beijingNow());
    }
    return fields;
}

std::optional<WechatPayGatewaySim::Answer> WechatPayGatewaySim::pay(const QJsonObject &body)
{
    const QString outTradeNo = body.value(QStringLiteral("out_trade_no")).toString();
    const QString authCode = body.value(QStringLiteral("payer"))
                                 .toObject()
                                 .value(QStringLiteral("auth_code"))
                                 .toString();
    const qint64 total = amountOf(body, "total");
    if (outTradeNo.isEmpty() || authCode.isEmpty() || total <= 0 ||
        body.value(QStringLiteral("mchid")).toString() != m_options.mchid)
        return Answer{400, error("PARAM_ERROR", QStringLiteral("mchid, out_trade_no, "
                                                               "payer.auth_code and amount.total "
                                                               "are required"))};
    payerConfirms(outTradeNo);
    if (authCode.startsWith(QLatin1String("tok_userPaying"))) {
        QMutexLocker lock(&m_reversedMutex);
        // A payment request sent again finds the payer where they were.
        if (m_userPaying.contains(outTradeNo))
            return m_reversed.contains(outTradeNo)
                       ? Answer{403,
                                error("ORDERREVERSED", QStringLiteral("the order is reversed"))}
                       : Answer{202, error("USERPAYING",
                                           QStringLiteral("the payer is entering a password"))};
        const std::optional<bool> paid = recorded(outTradeNo, QStringLiteral("authorize"));
        if (!paid)
            return busy();
        // Unless the payer confirmed already, when it is answered as any order is.
        if (!*paid) {
            const qint64 confirmsAt = authCode == QLatin1String("tok_userPayingConfirms")
                                          ? QDateTime::currentMSecsSinceEpoch() + 30000 +
                                                qint64(QRandomGenerator::global()->bounded(60000))
                                      : authCode == QLatin1String("tok_userPayingConfirmsOnReverse")
                                          ? -1
                                          : 0;
            m_userPaying.insert(outTradeNo, {total, authCode, confirmsAt});
            return Answer{202,
                          error("USERPAYING", QStringLiteral("the payer is entering a password"))};
        }
    }
    const ChannelRequest request{
        outTradeNo, QStringLiteral("authorize"), total, Yuan, authCode, true, outTradeNo};
    // WeChat Pay answers a payment request for an order already paid with a
    // refusal that says so, not with the first answer again.
    if (m_channel.query(request).outcome == ChannelOutcome::Approved) {
        const std::optional<bool> given = reversedPayment(outTradeNo);
        if (!given)
            return busy();
        return *given ? Answer{403, error("ORDERREVERSED", QStringLiteral("the order is reversed"))}
                      : Answer{403, error("ORDERPAID", QStringLiteral("the order is paid"))};
    }
    const ChannelResult result = m_channel.execute(request);
    switch (result.outcome) {
    case ChannelOutcome::Approved:
        return Answer{200,
                      order(outTradeNo, QStringLiteral("SUCCESS"), result.channelReference, total)};
    case ChannelOutcome::Declined:
        return result.declineCode == QLatin1String("insufficient_funds")
                   ? Answer{403, error("NOT_ENOUGH", result.message)}
                   : Answer{403, error("TRADE_ERROR", result.message)};
    case ChannelOutcome::Closed:
        return Answer{400, error("ORDER_CLOSED", QStringLiteral("the order is closed"))};
    case ChannelOutcome::Unknown:
        return std::nullopt;
    case ChannelOutcome::Failed:
    case ChannelOutcome::NotFound:
        break;
    }
    return busy();
}

WechatPayGatewaySim::Answer WechatPayGatewaySim::tradeQuery(const QString &outTradeNo)
{
    payerConfirms(outTradeNo);
    {
        QMutexLocker lock(&m_reversedMutex);
        if (m_userPaying.contains(outTradeNo))
            return Answer{200, order(outTradeNo,
                                     m_reversed.contains(outTradeNo) ? QStringLiteral("REVOKED")
                                                                     : QStringLiteral("USERPAYING"),
                                     {}, m_userPaying.value(outTradeNo).total)};
    }
    const ChannelResult known = m_channel.query({outTradeNo, QStringLiteral("authorize")});
    const std::optional<SimRecord> record =
        simRecord(m_settings, outTradeNo, QStringLiteral("authorize"));
    const qint64 total = record ? record->amount : 0;
    switch (known.outcome) {
    case ChannelOutcome::Approved: {
        const std::optional<bool> given = reversedPayment(outTradeNo);
        if (!given)
            return busy();
        if (*given)
            return Answer{200, order(outTradeNo, QStringLiteral("REVOKED"), {}, total)};
        return Answer{200,
                      order(outTradeNo, QStringLiteral("SUCCESS"), known.channelReference, total)};
    }
    case ChannelOutcome::Declined:
    case ChannelOutcome::Closed:
    case ChannelOutcome::Failed: {
        // A failed attempt stays PAYERROR until the merchant reverses it.
        QMutexLocker lock(&m_reversedMutex);
        const QString state = m_reversed.contains(outTradeNo) ? QStringLiteral("REVOKED")
                              : known.outcome == ChannelOutcome::Declined
                                  ? QStringLiteral("PAYERROR")
                                  : QStringLiteral("CLOSED");
        return Answer{200, order(outTradeNo, state, {}, total)};
    }
    case ChannelOutcome::NotFound:
        return Answer{404, error("ORDER_NOT_EXIST", QStringLiteral("no such order"))};
    case ChannelOutcome::Unknown:
        break;
    }
    return busy();
}

WechatPayGatewaySim::Answer WechatPayGatewaySim::reverse(const QString &outTradeNo,
                                                         const QJsonObject &body)
{
    const QJsonObject reversed{{QStringLiteral("appid"), body.value(QStringLiteral("appid"))},
                               {QStringLiteral("mchid"), m_options.mchid},
                               {QStringLiteral("out_trade_no"), outTradeNo}};
    payerConfirms(outTradeNo, true);
    {
        QMutexLocker lock(&m_reversedMutex);
        if (m_userPaying.contains(outTradeNo)) {
            // Unpaid only if the payer's confirmation left no payment: one it
            // may have left, unread, is for the paid path below to undo.
            const std::optional<bool> paid = recorded(outTradeNo, QStringLiteral("authorize"));
            if (!paid)
                return busy();
            if (!*paid) {
                m_reversed.insert(outTradeNo);
                return Answer{200, reversed};
            }
            m_userPaying.remove(outTradeNo);
        }
    }
    const ChannelRequest trade{outTradeNo, QStringLiteral("authorize")};
    const ChannelOutcome before = m_channel.query(trade).outcome;
    // An order WeChat Pay never saw: nothing is reversed, and nothing stops
    // a payment request still on its way from making one afterwards.
    if (before == ChannelOutcome::NotFound)
        return Answer{404, error("ORDER_NOT_EXIST", QStringLiteral("no such order"))};
    if (before != ChannelOutcome::Unknown) {
        switch (m_channel.close(trade).outcome) {
        case ChannelOutcome::Closed:
        case ChannelOutcome::Declined: {
            QMutexLocker lock(&m_reversedMutex);
            m_reversed.insert(outTradeNo);
            return Answer{200, reversed};
        }
        case ChannelOutcome::Approved:
            return reversePaid(outTradeNo, reversed);
        case ChannelOutcome::Failed:
        case ChannelOutcome::NotFound:
        case ChannelOutcome::Unknown:
            break;
        }
    }
    return busy();
}

// A payer who confirms does so at their moment, whatever keel asks
// meanwhile; the simulator carries the payment out when it next hears of the
// order. Held under the mutex, so that a reverse of the waiting order comes
// wholly before the payment (and stops it) or wholly after (and undoes it).
void WechatPayGatewaySim::payerConfirms(const QString &outTradeNo, bool reversing)
{
    QMutexLocker lock(&m_reversedMutex);
    const auto waiting = m_userPaying.constFind(outTradeNo);
    if (waiting == m_userPaying.cend() || m_reversed.contains(outTradeNo))
        return;
    const bool confirmsNow = waiting->confirmsAtMs < 0
                                 ? reversing
                                 : waiting->confirmsAtMs > 0 &&
                                       QDateTime::currentMSecsSinceEpoch() >= waiting->confirmsAtMs;
    if (!confirmsNow)
        return;
    const ChannelRequest payment{outTradeNo, QStringLiteral("authorize"), waiting->total,
                                 Yuan,       waiting->authCode,           true,
                                 outTradeNo};
    (void)m_channel.execute(payment);
    // Carried out, paid or refused, once the record says so; else tried again.
    const ChannelOutcome now = m_channel.query(payment).outcome;
    if (now == ChannelOutcome::Approved || now == ChannelOutcome::Declined)
        m_userPaying.remove(outTradeNo);
}

// WeChat Pay gives a paid order's money back on a reverse, within seven days
// of the payment (the simulator's orders are all younger). The payment's
// record stays; the reverse is recorded beside it, and the order reads
// REVOKED from then on.
WechatPayGatewaySim::Answer WechatPayGatewaySim::reversePaid(const QString &outTradeNo,
                                                             const QJsonObject &reversed)
{
    const std::optional<SimRecord> paid =
        simRecord(m_settings, outTradeNo, QStringLiteral("authorize"));
    if (!paid)
        return busy();
    const ChannelRequest giveBack{
        outTradeNo, QStringLiteral("reverse"), paid->amount, paid->currency, {}, false, outTradeNo};
    switch (m_channel.execute(giveBack).outcome) {
    case ChannelOutcome::Approved:
        return Answer{200, reversed};
    case ChannelOutcome::Declined:
    case ChannelOutcome::Closed:
    case ChannelOutcome::Unknown:
    case ChannelOutcome::Failed:
    case ChannelOutcome::NotFound:
        break;
    }
    return busy();
}

std::optional<bool> WechatPayGatewaySim::reversedPayment(const QString &outTradeNo)
{
    return recorded(outTradeNo, QStringLiteral("reverse"));
}

std::optional<bool> WechatPayGatewaySim::recorded(const QString &reference,
                                                  const QString &operation)
{
    switch (m_channel.query({reference, operation}).outcome) {
    case ChannelOutcome::Approved:
    case ChannelOutcome::Declined:
    case ChannelOutcome::Closed:
        return true;
    case ChannelOutcome::NotFound:
        return false;
    case ChannelOutcome::Unknown:
    case ChannelOutcome::Failed:
        break;
    }
    return std::nullopt; // not known: the record could not be read
}

std::optional<WechatPayGatewaySim::Answer> WechatPayGatewaySim::refund(const QJsonObject &body)
{
    const QString outTradeNo = body.value(QStringLiteral("out_trade_no")).toString();
    const QString outRefundNo = body.value(QStringLiteral("out_refund_no")).toString();
    const qint64 amount = amountOf(body, "refund");
    if (outTradeNo.isEmpty() || outRefundNo.isEmpty() || amount <= 0)
        return Answer{400, error("PARAM_ERROR", QStringLiteral("out_trade_no, out_refund_no and "
                                                               "amount.refund are required"))};
    const ChannelResult trade = m_channel.query({outTradeNo, QStringLiteral("authorize")});
    if (trade.outcome == ChannelOutcome::Unknown)
        return busy();
    const std::optional<SimRecord> paid =
        simRecord(m_settings, outTradeNo, QStringLiteral("authorize"));
    const std::optional<bool> given = reversedPayment(outTradeNo);
    if (!given)
        return busy();
    if (trade.outcome != ChannelOutcome::Approved || !paid || *given)
        return Answer{404, error("RESOURCE_NOT_EXISTS", QStringLiteral("no paid order to refund"))};
    if (amountOf(body, "total") != paid->amount)
        return Answer{
            400, error("INVALID_REQUEST", QStringLiteral("amount.total is not the order's total"))};
    const ChannelRequest request{outRefundNo, QStringLiteral("refund"), amount, Yuan, {}, true,
                                 outTradeNo};
    const ChannelResult result = m_channel.execute(request);
    switch (result.outcome) {
    case ChannelOutcome::Approved:
        return Answer{
            200,
            {{QStringLiteral("refund_id"), result.channelReference},
             {QStringLiteral("out_refund_no"), outRefundNo},
             {QStringLiteral("transaction_id"), trade.channelReference},
             {QStringLiteral("out_trade_no"), outTradeNo},
             {QStringLiteral("channel"), QStringLiteral("ORIGINAL")},
             // Accepted: WeChat Pay says the outcome when asked.
             {QStringLiteral("status"), QStringLiteral("PROCESSING")},
             {QStringLiteral("amount"), QJsonObject{{QStringLiteral("refund"), amount},
                                                    {QStringLiteral("total"), paid->amount},
                                                    {QStringLiteral("currency"), Yuan}}}}};
    case ChannelOutcome::Declined:
    case ChannelOutcome::Closed:
        return Answer{403, error("USER_ACCOUNT_ABNORMAL", result.message)};
    case ChannelOutcome::Unknown:
        return std::nullopt;
    case ChannelOutcome::Failed:
    case ChannelOutcome::NotFound:
        break;
    }
    return busy();
}

WechatPayGatewaySim::Answer WechatPayGatewaySim::refundQuery(const QString &outRefundNo)
{
    const ChannelResult known = m_channel.query({outRefundNo, QStringLiteral("refund")});
    if (known.outcome == ChannelOutcome::Unknown)
        return busy();
    const std::optional<SimRecord> record =
        simRecord(m_settings, outRefundNo, QStringLiteral("refund"));
    // WeChat Pay has no refund it refused.
    if (known.outcome != ChannelOutcome::Approved || !record)
        return Answer{404, error("RESOURCE_NOT_EXISTS", QStringLiteral("no such refund"))};
    return Answer{
        200,
        {{QStringLiteral("refund_id"), known.channelReference},
         {QStringLiteral("out_refund_no"), outRefundNo},
         {QStringLiteral("status"), QStringLiteral("SUCCESS")},
         {QStringLiteral("amount"), QJsonObject{{QStringLiteral("refund"), record->amount},
                                                {QStringLiteral("currency"), Yuan}}}}};
}

WechatPayGatewaySim::Answer WechatPayGatewaySim::certificates() const
{
    quint32 words[3];
    QRandomGenerator::global()->fillRange(words);
    const QByteArray nonce =
        QByteArray(reinterpret_cast<const char *>(words), sizeof words).toHex().left(12);
    const QByteArray associated = "certificate";
    const Result<QByteArray> sealed =
        AesGcm::seal(m_options.apiV3Key, nonce, associated, m_options.platformCertificatePem);
    if (!sealed)
        return Answer{500, error("SYSTEM_ERROR", sealed.error().message)};
    const QDateTime now = QDateTime::currentDateTimeUtc().toTimeZone(QTimeZone(8 * 3600));
    const QJsonObject entry{
        {QStringLiteral("serial_no"), QString::fromLatin1(m_options.platformSerial)},
        {QStringLiteral("effective_time"), now.addDays(-1).toString(Qt::ISODate)},
        {QStringLiteral("expire_time"), now.addYears(5).toString(Qt::ISODate)},
        {QStringLiteral("encrypt_certificate"),
         QJsonObject{{QStringLiteral("algorithm"), QStringLiteral("AEAD_AES_256_GCM")},
                     {QStringLiteral("nonce"), QString::fromLatin1(nonce)},
                     {QStringLiteral("associated_data"), QString::fromLatin1(associated)},
                     {QStringLiteral("ciphertext"), QString::fromLatin1(*sealed)}}}};
    return Answer{200, {{QStringLiteral("data"), QJsonArray{entry}}}};
}

HttpResponse WechatPayGatewaySim::signedAnswer(const Answer &answer) const
{
    const QByteArray body = answer.status == 200 && answer.fields.isEmpty()
                                ? QByteArray()
                                : QJsonDocument(answer.fields).toJson(QJsonDocument::Compact);
    quint32 words[4];
    QRandomGenerator::global()->fillRange(words);
    const QByteArray nonce =
        QByteArray(reinterpret_cast<const char *>(words), sizeof words).toHex();
    HttpResponse response = jsonResponse(answer.status, body);
    const Result<WechatPayHeaders> headers =
        WechatPaySignature::sign(body, m_options.platformKey, m_options.platformSerial,
                                 QDateTime::currentSecsSinceEpoch(), nonce);
    if (headers) {
        response.setHeader("Wechatpay-Timestamp", headers->timestamp);
        response.setHeader("Wechatpay-Nonce", headers->nonce);
        response.setHeader("Wechatpay-Serial", headers->serial);
        response.setHeader("Wechatpay-Signature", headers->signature);
    }
    return response;
}

} // namespace keel
