#include "core/channel/WechatPayChannel.h"

#include "core/ServiceLog.h"
#include "core/net/ClientPool.h"
#include "core/net/HttpClient.h"
#include "core/signing/WechatPaySignature.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QSet>

namespace keel {

using WechatPayApi::Meaning;
using WechatPayApi::Operation;

namespace {

const QString Yuan = QStringLiteral("CNY");

// How long a payer may take to confirm a payment (enter a password) before
// an order still waiting is reversed; WeChat Pay suggests polling for about
// half a minute.
constexpr qint64 PayerWaitSeconds = 60;

ChannelResult unknown(const QString &why)
{
    return {ChannelOutcome::Unknown, {}, why};
}

// WeChat Pay's error code as a decline code: "NOT_ENOUGH" is "not_enough".
QString declineCode(const WechatPayApi::Reading &reading)
{
    return reading.code.toLower();
}

QByteArray nonce()
{
    quint32 words[4];
    QRandomGenerator::system()->fillRange(words);
    return QByteArray(reinterpret_cast<const char *>(words), sizeof words).toHex().toUpper();
}

QByteArray percent(const QString &segment)
{
    return QUrl::toPercentEncoding(segment);
}

// Why an answer is not about what was asked ("" if it is): the signature
// says WeChat Pay wrote it, not which order it speaks of. A success, and a
// query's "closed unpaid", must name what was asked; nothing may name another.
QString mismatch(Operation operation, const QJsonObject &names, const QJsonObject &answer,
                 const WechatPayApi::Reading &reading, int status)
{
    const bool success = status == 200;
    for (auto it = names.begin(); it != names.end(); ++it) {
        const QJsonValue said = answer.value(it.key());
        // The merchant number, and a refund's order, are checked where an
        // answer gives them; the refund's own number is what names it.
        const bool optional =
            it.key() == QLatin1String("mchid") ||
            (it.key() == QLatin1String("out_trade_no") &&
             (operation == Operation::Refund || operation == Operation::RefundQuery));
        const bool required =
            success && !optional &&
            (reading.meaning == Meaning::Done ||
             (reading.meaning == Meaning::Refused && operation != Operation::Pay));
        if (said.isString() ? said.toString() != it.value().toString() : required)
            return QStringLiteral("WeChat Pay %1's answer names %2 %3, not %4")
                .arg(WechatPayApi::operationName(operation), it.key(),
                     said.isString() ? said.toString() : QStringLiteral("nothing"),
                     it.value().toString());
    }
    return {};
}

qint64 amountField(const QJsonObject &fields, const char *name)
{
    const QJsonValue value =
        fields.value(QStringLiteral("amount")).toObject().value(QLatin1String(name));
    return value.isDouble() ? qint64(value.toDouble()) : -1;
}

} // namespace

struct WechatPayChannel::Exchange {
    bool answered = false;     // a verified answer from WeChat Pay about this order
    bool maybeReceived = true; // without one: the request may have reached WeChat Pay
    bool resent = false;       // the request went out twice: the answer may be to the copy
    WechatPayApi::Reading reading;
    QJsonObject fields;
    QString why; // without one: what went wrong
};

WechatPayChannel::WechatPayChannel(WechatPayChannelOptions options,
                                   const ConnectionSettings &settings)
    : m_options(std::move(options)),
      m_certificates(m_options.certificates
                         ? m_options.certificates
                         : std::make_shared<WechatPayCertificates>(m_options.platformCertificates,
                                                                   m_options.apiV3Key)),
      m_reverses(settings, QStringLiteral("wechatpay"))
{}

HttpReply WechatPayChannel::send(const QByteArray &method, const QByteArray &pathAndQuery,
                                 const QByteArray &body, QString *refusal)
{
    const QByteArray path = m_options.api.path(QUrl::FullyEncoded)
                                .toLatin1()
                                .chopped(m_options.api.path().endsWith(u'/') ? 1 : 0) +
                            pathAndQuery;
    Result<QByteArray> authorization =
        WechatPayApi::authorize(method, path, body, m_options.mchid, m_options.merchantSerial,
                                m_options.merchantKey, QDateTime::currentSecsSinceEpoch(), nonce());
    HttpClient *client = pooledClient(m_options.api, m_options.timeoutMs, m_options.authority);
    if (!authorization || !client) {
        *refusal =
            authorization ? HttpClient::refusal(m_options.api) : authorization.error().message;
        return {};
    }
    HttpClient::Headers headers{
        {"Authorization", *authorization}, {"Accept", "application/json"}, {"User-Agent", "keel"}};
    if (method == "POST")
        headers.append(std::pair<QByteArray, QByteArray>("Content-Type", "application/json"));
    return client->request(method, path, headers, body);
}

namespace {

WechatPayHeaders signatureOf(const HttpReply &reply)
{
    return {reply.header("wechatpay-timestamp"), reply.header("wechatpay-nonce"),
            reply.header("wechatpay-serial"), reply.header("wechatpay-signature")};
}

} // namespace

SignatureVerdict WechatPayChannel::verify(const HttpReply &reply)
{
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    SignatureVerdict verdict =
        WechatPaySignature::verify(signatureOf(reply), reply.body, m_certificates->current(), now);
    // A serial keel does not hold: WeChat Pay may have rotated its key.
    if (verdict == SignatureVerdict::UnknownKey && m_certificates->refreshDue(now)) {
        refreshCertificates();
        verdict = WechatPaySignature::verify(signatureOf(reply), reply.body,
                                             m_certificates->current(), now);
    }
    // An answer signed once is believed once: one replayed within its
    // window would speak of another request.
    if (verdict == SignatureVerdict::Valid && !firstUse(reply.header("wechatpay-nonce"), now))
        return SignatureVerdict::OutsideWindow;
    return verdict;
}

bool WechatPayChannel::firstUse(const QByteArray &nonce, qint64 now)
{
    QMutexLocker lock(&m_noncesMutex);
    // Past the signature window a nonce cannot come back: its answer is too
    // old. Swept once a minute, not on every answer.
    if (now - m_noncesSwept >= 60) {
        m_seenNonces.removeIf([now](const auto &seen) { return seen.value() < now - 600; });
        m_noncesSwept = now;
    }
    if (m_seenNonces.contains(nonce))
        return false;
    m_seenNonces.insert(nonce, now);
    return true;
}

void WechatPayChannel::refreshCertificates()
{
    QString refusal;
    const HttpReply reply = send("GET", "/v3/certificates", {}, &refusal);
    if (!refusal.isEmpty() || reply.status != 200)
        return ServiceLog::warning(
            QStringLiteral("WeChat Pay's certificate list could not be read: %1")
                .arg(refusal.isEmpty() ? reply.error.isEmpty()
                                             ? QStringLiteral("HTTP %1").arg(reply.status)
                                             : reply.error
                                       : refusal));
    const Result<int> added =
        m_certificates->adopt(signatureOf(reply), reply.body, QDateTime::currentSecsSinceEpoch());
    if (!added)
        return ServiceLog::warning(added.error().message);
    ServiceLog::info(QStringLiteral("WeChat Pay's certificate list read: %1 new").arg(*added));
}

WechatPayChannel::Exchange WechatPayChannel::call(Operation operation,
                                                  const QByteArray &pathAndQuery,
                                                  const QJsonObject &body, const QJsonObject &names)
{
    Exchange exchange;
    const QString what = WechatPayApi::operationName(operation);
    const bool get = operation == Operation::TradeQuery || operation == Operation::RefundQuery;
    QString refusal;
    const HttpReply reply =
        send(get ? "GET" : "POST", pathAndQuery,
             get ? QByteArray() : QJsonDocument(body).toJson(QJsonDocument::Compact), &refusal);
    if (!refusal.isEmpty()) {
        exchange.maybeReceived = false;
        exchange.why = refusal;
        return exchange;
    }
    exchange.resent = reply.resent;
    if (reply.status == 0) {
        exchange.maybeReceived = reply.failure != HttpFailure::Unreachable;
        exchange.why = QStringLiteral("WeChat Pay %1 got no answer: %2").arg(what, reply.error);
        return exchange;
    }
    if (const SignatureVerdict verdict = verify(reply); verdict != SignatureVerdict::Valid) {
        // Whoever sent it, it is not WeChat Pay's word on the money.
        exchange.why = QStringLiteral("WeChat Pay %1's answer (HTTP %2) is not WeChat Pay's: %3")
                           .arg(what)
                           .arg(reply.status)
                           .arg(verdictMessage(verdict));
        return exchange;
    }
    const QJsonDocument answer = QJsonDocument::fromJson(reply.body);
    if (!reply.body.isEmpty() && !answer.isObject()) {
        exchange.why = QStringLiteral("WeChat Pay %1's answer is not a JSON object").arg(what);
        return exchange;
    }
    exchange.fields = answer.object();
    exchange.reading = WechatPayApi::classify(operation, reply.status, exchange.fields);
    QJsonObject named = names;
    named.insert(QStringLiteral("mchid"), m_options.mchid);
    exchange.why = mismatch(operation, named, exchange.fields, exchange.reading, reply.status);
    if (!exchange.why.isEmpty())
        return exchange;
    exchange.answered = true;
    exchange.why = exchange.reading.why;
    return exchange;
}

// A request without a verified answer: in doubt if it may have reached
// WeChat Pay, failed if it certainly did not.
ChannelResult WechatPayChannel::unanswered(const Exchange &exchange)
{
    return exchange.maybeReceived ? unknown(exchange.why)
                                  : ChannelResult{ChannelOutcome::Failed, {}, exchange.why};
}

// A paid order, if WeChat Pay's figure is the one asked for.
ChannelResult WechatPayChannel::paidOrder(const Exchange &exchange, qint64 amount)
{
    const QString currency = exchange.fields.value(QStringLiteral("amount"))
                                 .toObject()
                                 .value(QStringLiteral("currency"))
                                 .toString();
    if (amountField(exchange.fields, "total") != amount || currency != Yuan)
        return unknown(exchange.why + QStringLiteral(": a different amount"));
    return {ChannelOutcome::Approved,
            {},
            exchange.why,
            exchange.fields.value(QStringLiteral("transaction_id")).toString()};
}

ChannelResult WechatPayChannel::execute(const ChannelRequest &request)
{
    if (request.currency.toUpper() != Yuan)
        return {ChannelOutcome::Declined, QStringLiteral("currency_not_supported"),
                QStringLiteral("WeChat Pay takes CNY only, not %1").arg(request.currency)};
    const bool paying = request.operation == QLatin1String("authorize");
    if (paying && !request.capture)
        return {ChannelOutcome::Declined, QStringLiteral("capture_required"),
                QStringLiteral("a WeChat Pay payment is captured when paid: send capture=true")};
    if (!paying && request.operation != QLatin1String("refund"))
        // A sale has nothing left to capture or void; nothing is sent.
        return {ChannelOutcome::Failed,
                {},
                QStringLiteral("WeChat Pay has no %1 of a payment").arg(request.operation)};
    // A payment code is sent once. A request that may not be the first (a
    // takeover of a key whose holder stalled) could race the holder's
    // refusal handling, which closes the order on the word that its request
    // was the only one: the order query and the reconciler decide instead.
    if (paying && !request.firstAttempt)
        return unknown(QStringLiteral("%1 may already be on its way to WeChat Pay: its payment "
                                      "code is not sent again")
                           .arg(request.reference));
    ChannelResult result = paying ? pay(request) : refund(request);
    // A query's "no such order or refund" after "already paid" or a refund
    // still processing says nothing yet: the earlier copy may not show.
    if (result.outcome == ChannelOutcome::NotFound)
        result.outcome = ChannelOutcome::Unknown;
    return unlessReversing(request, result);
}

// Every "paid" keel is told passes here, after it was read: a process about
// to reverse the order records its copy before it reads the order unpaid,
// so a payment read after that reading is seen to be in danger here.
ChannelResult WechatPayChannel::unlessReversing(const ChannelRequest &operation,
                                                const ChannelResult &result)
{
    if (result.outcome != ChannelOutcome::Approved ||
        operation.operation == QLatin1String("refund") ||
        !m_reverses.approvalMayBeUndone(operation.chargeId()))
        return result;
    return unknown(QStringLiteral("WeChat Pay reads %1 paid, but a reverse of it may still be "
                                  "carried out: %2")
                       .arg(operation.chargeId(), result.message));
}

ChannelResult WechatPayChannel::pay(const ChannelRequest &request)
{
    const QJsonObject body{
        {QStringLiteral("appid"), m_options.appid},
        {QStringLiteral("mchid"), m_options.mchid},
        {QStringLiteral("description"), QStringLiteral("Payment %1").arg(request.reference)},
        {QStringLiteral("out_trade_no"), request.reference},
        {QStringLiteral("payer"), QJsonObject{{QStringLiteral("auth_code"), request.source}}},
        {QStringLiteral("amount"), QJsonObject{{QStringLiteral("total"), request.amount},
                                               {QStringLiteral("currency"), Yuan}}},
        {QStringLiteral("scene_info"),
         QJsonObject{{QStringLiteral("device_id"), QStringLiteral("keel")}}}};
    const Exchange exchange = call(Operation::Pay, "/v3/pay/transactions/codepay", body,
                                   {{QStringLiteral("out_trade_no"), request.reference}});
    if (!exchange.answered)
        return unanswered(exchange);
    switch (exchange.reading.meaning) {
    case Meaning::Done:
        // "Already paid" says nothing of how much: the order does.
        if (!exchange.fields.contains(QStringLiteral("trade_state")))
            return queryTrade(request);
        return paidOrder(exchange, request.amount);
    case Meaning::Refused:
        // WeChat Pay said no to this request. It may leave an order open
        // under the out_trade_no for a copy still on its way (or paid by an
        // earlier one): the order decides, and once WeChat Pay has reversed
        // it unpaid, the refusal is final.
        if (const ChannelResult closed =
                closeOrder(request, request.firstAttempt && !exchange.resent);
            closed.outcome != ChannelOutcome::Closed)
            return closed;
        return {ChannelOutcome::Declined, declineCode(exchange.reading), exchange.why};
    case Meaning::NotFound:
    case Meaning::InDoubt:
        break;
    }
    return unknown(exchange.why);
}

ChannelResult WechatPayChannel::refund(const ChannelRequest &request)
{
    // WeChat Pay checks a refund against its order's total: without it the
    // request could only be refused, and a refusal of a repeat says nothing.
    if (request.chargeAmount <= 0)
        return {ChannelOutcome::Failed,
                {},
                QStringLiteral("WeChat Pay needs the order's total to refund %1; keel does not "
                               "know it")
                    .arg(request.chargeId())};
    const QJsonObject body{
        {QStringLiteral("out_trade_no"), request.chargeId()},
        {QStringLiteral("out_refund_no"), request.reference},
        {QStringLiteral("amount"), QJsonObject{{QStringLiteral("refund"), request.amount},
                                               {QStringLiteral("total"), request.chargeAmount},
                                               {QStringLiteral("currency"), Yuan}}}};
    const Exchange exchange = call(Operation::Refund, "/v3/refund/domestic/refunds", body,
                                   {{QStringLiteral("out_refund_no"), request.reference},
                                    {QStringLiteral("out_trade_no"), request.chargeId()}});
    if (!exchange.answered)
        return unanswered(exchange);
    switch (exchange.reading.meaning) {
    case Meaning::Done:
        if (amountField(exchange.fields, "refund") != request.amount)
            return unknown(exchange.why + QStringLiteral(": a different amount.refund"));
        return {ChannelOutcome::Approved,
                {},
                exchange.why,
                exchange.fields.value(QStringLiteral("refund_id")).toString()};
    case Meaning::Refused:
        // A refusal is WeChat Pay's word on this refund only when no other
        // copy of it was ever sent; otherwise an earlier copy may have been
        // made (and may even have caused the refusal): the refund query decides.
        if (!request.firstAttempt || exchange.resent) {
            const ChannelResult known = queryRefund(request);
            if (known.outcome == ChannelOutcome::Approved ||
                known.outcome == ChannelOutcome::Declined)
                return known;
            return unknown(QStringLiteral("%1; an earlier copy of the refund may have been made, "
                                          "and the refund query does not yet show it (%2)")
                               .arg(exchange.why, known.message));
        }
        return {ChannelOutcome::Declined, declineCode(exchange.reading), exchange.why};
    case Meaning::NotFound:
    case Meaning::InDoubt:
        break;
    }
    return unknown(exchange.why);
}

ChannelResult WechatPayChannel::query(const ChannelRequest &operation)
{
    if (operation.operation == QLatin1String("refund"))
        return queryRefund(operation);
    if (operation.operation == QLatin1String("capture"))
        return unlessReversing(operation, queryTrade(operation));
    if (operation.operation != QLatin1String("authorize"))
        return {ChannelOutcome::NotFound,
                {},
                QStringLiteral("WeChat Pay has no %1 of a payment").arg(operation.operation)};
    return unlessReversing(operation, queryOrder(operation));
}

ChannelResult WechatPayChannel::queryOrder(const ChannelRequest &operation)
{
    QString unpaid;
    const ChannelResult known = queryTrade(operation, &unpaid);
    if (std::optional<ChannelResult> decided = afterReading(operation, known, unpaid))
        return *decided;
    // An order left unpaid is settled by reversing it: at once after a failed
    // attempt (PAYERROR: WeChat Pay asks for the reverse), and once the payer
    // has had time to enter a password otherwise.
    const qint64 age = QDateTime::currentSecsSinceEpoch() - operation.chargeCreatedEpoch;
    if (unpaid == QLatin1String("PAYERROR") ||
        ((unpaid == QLatin1String("NOTPAY") || unpaid == QLatin1String("USERPAYING")) &&
         operation.chargeCreatedEpoch > 0 && age > PayerWaitSeconds))
        return reverse(operation, false);
    return known;
}

ChannelResult WechatPayChannel::queryTrade(const ChannelRequest &operation, QString *unpaid)
{
    const Exchange exchange =
        call(Operation::TradeQuery,
             "/v3/pay/transactions/out-trade-no/" + percent(operation.chargeId()) +
                 "?mchid=" + percent(m_options.mchid),
             {}, {{QStringLiteral("out_trade_no"), operation.chargeId()}});
    if (!exchange.answered)
        return unknown(exchange.why);
    static const QSet<QString> unpaidStates{QStringLiteral("NOTPAY"), QStringLiteral("USERPAYING"),
                                            QStringLiteral("PAYERROR")};
    if (unpaid && (exchange.reading.meaning == Meaning::NotFound ||
                   (exchange.reading.meaning == Meaning::InDoubt &&
                    unpaidStates.contains(exchange.reading.code))))
        *unpaid = exchange.reading.code;
    switch (exchange.reading.meaning) {
    case Meaning::Done:
        return paidOrder(exchange, operation.amount);
    case Meaning::Refused:
        return {ChannelOutcome::Closed, {}, exchange.why}; // closed, and nothing kept
    case Meaning::NotFound:
        return {ChannelOutcome::NotFound, {}, exchange.why};
    case Meaning::InDoubt:
        break;
    }
    return unknown(exchange.why);
}

ChannelResult WechatPayChannel::queryRefund(const ChannelRequest &operation)
{
    const Exchange exchange = call(
        Operation::RefundQuery, "/v3/refund/domestic/refunds/" + percent(operation.reference), {},
        {{QStringLiteral("out_refund_no"), operation.reference},
         {QStringLiteral("out_trade_no"), operation.chargeId()}});
    if (!exchange.answered)
        return unknown(exchange.why);
    switch (exchange.reading.meaning) {
    case Meaning::Done:
        if (amountField(exchange.fields, "refund") != operation.amount)
            return unknown(exchange.why + QStringLiteral(": a different amount.refund"));
        return {ChannelOutcome::Approved,
                {},
                exchange.why,
                exchange.fields.value(QStringLiteral("refund_id")).toString()};
    case Meaning::Refused:
        return {ChannelOutcome::Declined, QStringLiteral("refund_closed"), exchange.why};
    case Meaning::NotFound:
        return {ChannelOutcome::NotFound, {}, exchange.why};
    case Meaning::InDoubt:
        break;
    }
    return unknown(exchange.why);
}

ChannelResult WechatPayChannel::close(const ChannelRequest &operation)
{
    if (operation.operation == QLatin1String("refund")) {
        const ChannelResult known = queryRefund(operation);
        if (known.outcome == ChannelOutcome::Approved || known.outcome == ChannelOutcome::Declined)
            return known;
        return unknown(QStringLiteral("WeChat Pay cannot refuse a refund still on its way (%1)")
                           .arg(known.message));
    }
    if (operation.operation != QLatin1String("authorize"))
        return unknown(QStringLiteral("WeChat Pay has no %1 to close").arg(operation.operation));
    return unlessReversing(operation, closeOrder(operation, false));
}

ChannelResult WechatPayChannel::sendReverse(const ChannelRequest &operation, bool justRefused,
                                            bool seenAbsent, std::optional<qint64> recorded)
{
    const QString order = operation.chargeId();
    const Result<qint64> copy = recorded ? Result<qint64>(*recorded) : m_reverses.record(order);
    if (!copy)
        return unknown(
            QStringLiteral("the reverse of %1 was not sent: it could not be recorded (%2)")
                .arg(order, copy.error().message));
    const Exchange exchange = call(
        Operation::Reverse, "/v3/pay/transactions/out-trade-no/" + percent(order) + "/reverse",
        {{QStringLiteral("appid"), m_options.appid}, {QStringLiteral("mchid"), m_options.mchid}},
        {{QStringLiteral("out_trade_no"), order}});
    // Unanswered, the reverse may yet be carried out and give a payment
    // back: nothing the order says now is final, and the copy stays
    // unsettled, unless it certainly never left.
    if (!exchange.answered || exchange.reading.meaning == Meaning::InDoubt) {
        if (!exchange.answered && !exchange.maybeReceived)
            (void)m_reverses.settle(*copy);
        return unknown(QStringLiteral("WeChat Pay did not answer the reverse of %1: %2")
                           .arg(order, exchange.why));
    }
    // A refusal or "no such order" settles this copy if it was sent once;
    // it says nothing of any other copy still unsettled.
    const bool refused = exchange.reading.meaning == Meaning::Refused;
    const bool settled = (refused || exchange.reading.meaning == Meaning::NotFound) &&
                         !exchange.resent && m_reverses.settle(*copy).ok();
    // "No such order" of an order just read is WeChat Pay contradicting
    // itself: nothing is concluded.
    if (exchange.reading.meaning == Meaning::NotFound)
        return seenAbsent
                   ? neverSeen(operation, justRefused && settled && alone(order), exchange.why)
                   : unknown(QStringLiteral("WeChat Pay has no order %1 to reverse, yet "
                                            "read one: %2")
                                 .arg(order, exchange.why));
    const ChannelResult now = queryTrade(operation);
    if (now.outcome == ChannelOutcome::Closed) {
        // No copy can undo a closed order. Left unsettled if this fails: the
        // next look sends the reverse again, which finds it closed.
        (void)m_reverses.settleOrder(order);
        return now;
    }
    const bool onlyCopy = refused && settled && alone(order);
    if (onlyCopy && now.outcome == ChannelOutcome::Approved)
        return now;
    if (onlyCopy && now.outcome == ChannelOutcome::NotFound)
        return neverSeen(operation, false, now.message);
    // Reversed, yet the order does not read so (it lags), or another copy is
    // still unsettled: asked again.
    return unknown(
        QStringLiteral("WeChat Pay's reverse of %1: %2; %3").arg(order, exchange.why, now.message));
}

Result<ChannelFactory> wechatpayChannel(WechatPayChannelOptions options)
{
    if (options.mchid.isEmpty() || options.appid.isEmpty())
        return fieldError(options.mchid.isEmpty() ? QStringLiteral("wechatpay-mchid")
                                                  : QStringLiteral("wechatpay-appid"),
                          QStringLiteral("parameter_missing"),
                          QStringLiteral("--channel wechatpay needs --wechatpay-mchid and "
                                         "--wechatpay-appid"));
    if (!options.merchantKey.canSign())
        return fieldError(QStringLiteral("wechatpay-merchant-key"), QStringLiteral("key_invalid"),
                          QStringLiteral("--wechatpay-merchant-key must hold the merchant's API "
                                         "private key"));
    if (options.merchantSerial.isEmpty())
        return fieldError(QStringLiteral("wechatpay-merchant-certificate"),
                          QStringLiteral("key_invalid"),
                          QStringLiteral("--wechatpay-merchant-certificate must be the merchant's "
                                         "API certificate (its serial number is sent)"));
    if (options.platformCertificates.isEmpty() && !options.certificates)
        return fieldError(QStringLiteral("wechatpay-certificate"),
                          QStringLiteral("parameter_missing"),
                          QStringLiteral("--channel wechatpay needs --wechatpay-certificate: "
                                         "WeChat Pay's answers are verified with it"));
    const QUrl &api = options.api;
    if (!api.isValid() || api.host().isEmpty() || !HttpClient::refusal(api).isEmpty())
        return fieldError(QStringLiteral("wechatpay-api"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("--wechatpay-api %1: %2")
                              .arg(api.toString(), HttpClient::refusal(api).isEmpty()
                                                       ? QStringLiteral("not a URL keel can call")
                                                       : HttpClient::refusal(api)));
    // One certificate set for every process's channel, so that a rotation
    // learned once is known to all.
    if (!options.certificates)
        options.certificates =
            std::make_shared<WechatPayCertificates>(options.platformCertificates, options.apiV3Key);
    return ChannelFactory([options](const ConnectionSettings &settings) {
        return std::make_shared<WechatPayChannel>(options, settings);
    });
}

} // namespace keel
