#include "core/channel/AlipayChannel.h"

#include "core/channel/AlipayOpenApi.h"
#include "core/money/Currency.h"
#include "core/net/ClientPool.h"
#include "core/net/HttpClient.h"

#include <QDateTime>

namespace keel {

using AlipayOpenApi::Meaning;

namespace {

const QString Pay = QStringLiteral("alipay.trade.pay");
const QString TradeQuery = QStringLiteral("alipay.trade.query");
const QString Cancel = QStringLiteral("alipay.trade.cancel");
const QString Refund = QStringLiteral("alipay.trade.refund");
const QString RefundQuery = QStringLiteral("alipay.trade.fastpay.refund.query");

// Alipay's domestic trades are in yuan, written with two decimals.
const Currency Yuan{QStringLiteral("CNY"), 2, 0};

ChannelResult unknown(const QString &why)
{
    return {ChannelOutcome::Unknown, {}, why};
}

// Alipay's sub_code as a decline code: "ACQ.BUYER_BALANCE_NOT_ENOUGH" is
// "buyer_balance_not_enough".
QString declineCode(const AlipayOpenApi::Reading &reading)
{
    QString code = reading.subCode.isEmpty() ? reading.code : reading.subCode;
    if (const qsizetype dot = code.indexOf(u'.'); dot >= 0)
        code = code.mid(dot + 1);
    return code.toLower().replace(u'-', u'_');
}

// Whether an amount Alipay reports is the one keel asked for; a missing one
// is not a difference.
bool sameAmount(const QJsonObject &fields, const char *field, qint64 expected)
{
    const QString said = fields.value(QLatin1String(field)).toString();
    if (said.isEmpty())
        return true;
    const Result<qint64> amount = parseMajorUnits(said, Yuan, QString::fromLatin1(field));
    return amount && *amount == expected;
}

} // namespace

struct AlipayChannel::Exchange {
    bool answered = false;     // a verified answer from Alipay about this trade
    bool maybeReceived = true; // without one: the request may have reached Alipay
    bool resent = false;       // the call went out twice: the answer may be to the copy
    AlipayOpenApi::Reading reading;
    QJsonObject fields;
    QString why; // without one: what went wrong
};

namespace {

// Why an answer is not about what was asked ("" if it is): the signature
// says Alipay wrote it, not which trade it speaks of. A success must name the
// trade (and a refund query the refund); nothing may name another.
QString mismatch(const QString &method, const QJsonObject &asked, const QJsonObject &answer,
                 Meaning meaning)
{
    for (const char *key : {"out_trade_no", "out_request_no"}) {
        const QString wanted = asked.value(QLatin1String(key)).toString();
        if (wanted.isEmpty())
            continue;
        const QJsonValue said = answer.value(QLatin1String(key));
        // "Already paid" names nothing and is re-read by a query; a trade
        // query's "closed, unpaid" fails a payment, so it must name its trade.
        const bool tradeKey = qstrcmp(key, "out_trade_no") == 0;
        const bool required = (meaning == Meaning::Done &&
                               answer.value(QLatin1String("sub_code")).toString() !=
                                   QLatin1String("ACQ.TRADE_HAS_SUCCESS") &&
                               (tradeKey || method == RefundQuery)) ||
                              (meaning == Meaning::Refused && method == TradeQuery && tradeKey);
        if (said.isString() ? said.toString() != wanted : required)
            return QStringLiteral("Alipay %1's answer names %2 %3, not %4")
                .arg(method, QLatin1String(key),
                     said.isString() ? said.toString() : QStringLiteral("nothing"), wanted);
    }
    return {};
}

} // namespace

AlipayChannel::AlipayChannel(AlipayChannelOptions options) : m_options(std::move(options)) {}

AlipayChannel::Exchange AlipayChannel::call(const QString &method, const QJsonObject &bizContent)
{
    Exchange exchange;
    AlipayOpenApi::Call call{m_options.appId, method, bizContent,
                             method == Pay ? m_options.notifyUrl : QString(),
                             QDateTime::currentDateTimeUtc()};
    Result<AlipaySignature::Parameters> signedCall =
        AlipayOpenApi::signedCall(call, m_options.appPrivateKey);
    HttpClient *client = pooledClient(m_options.gateway, m_options.timeoutMs, m_options.authority);
    if (!signedCall || !client) {
        exchange.maybeReceived = false;
        exchange.why =
            signedCall ? HttpClient::refusal(m_options.gateway) : signedCall.error().message;
        return exchange;
    }
    QByteArray path = m_options.gateway.path(QUrl::FullyEncoded).toLatin1();
    if (path.isEmpty())
        path = "/";
    const HttpReply reply = client->request(
        "POST", path, {{"Content-Type", "application/x-www-form-urlencoded;charset=utf-8"}},
        AlipayOpenApi::formBody(*signedCall));
    exchange.resent = reply.resent;
    if (reply.status == 0) {
        exchange.maybeReceived = reply.failure != HttpFailure::Unreachable;
        exchange.why = QStringLiteral("Alipay %1 got no answer: %2").arg(method, reply.error);
        return exchange;
    }
    if (reply.status != 200) {
        exchange.why = QStringLiteral("Alipay %1 answered HTTP %2").arg(method).arg(reply.status);
        return exchange;
    }
    Result<AlipayOpenApi::Answer> answer = AlipayOpenApi::readAnswer(reply.body, method);
    if (!answer) {
        exchange.why = answer.error().message;
        return exchange;
    }
    if (const SignatureVerdict verdict = AlipayOpenApi::verify(*answer, m_options.alipayPublicKey);
        verdict != SignatureVerdict::Valid) {
        // Whoever sent it, it is not Alipay's word on the money.
        exchange.why = QStringLiteral("Alipay %1's answer is not Alipay's: %2")
                           .arg(method, verdictMessage(verdict));
        return exchange;
    }
    exchange.reading = AlipayOpenApi::classify(method, answer->fields);
    exchange.why = mismatch(method, bizContent, answer->fields, exchange.reading.meaning);
    if (!exchange.why.isEmpty())
        return exchange;
    exchange.answered = true;
    exchange.fields = answer->fields;
    exchange.why = exchange.reading.why;
    return exchange;
}

// A request without a verified answer: in doubt if it may have reached
// Alipay, failed if it certainly did not.
ChannelResult AlipayChannel::unanswered(const Exchange &exchange)
{
    return exchange.maybeReceived ? unknown(exchange.why)
                                  : ChannelResult{ChannelOutcome::Failed, {}, exchange.why};
}

// A paid trade, if Alipay's figure is the one asked for.
ChannelResult AlipayChannel::paidTrade(const Exchange &exchange, qint64 amount)
{
    if (!sameAmount(exchange.fields, "total_amount", amount))
        return unknown(exchange.why + QStringLiteral(": a different total_amount"));
    return {ChannelOutcome::Approved,
            {},
            exchange.why,
            exchange.fields.value(QStringLiteral("trade_no")).toString()};
}

ChannelResult AlipayChannel::execute(const ChannelRequest &request)
{
    if (request.currency.toUpper() != Yuan.code)
        return {ChannelOutcome::Declined, QStringLiteral("currency_not_supported"),
                QStringLiteral("Alipay takes CNY only, not %1").arg(request.currency)};
    const bool paying = request.operation == QLatin1String("authorize");
    if (paying && !request.capture)
        return {ChannelOutcome::Declined, QStringLiteral("capture_required"),
                QStringLiteral("an Alipay payment is captured when paid: send capture=true")};
    if (!paying && request.operation != QLatin1String("refund"))
        // A sale has nothing left to capture or void; nothing is sent.
        return {ChannelOutcome::Failed,
                {},
                QStringLiteral("Alipay has no %1 of a payment").arg(request.operation)};
    ChannelResult result = paying ? pay(request) : refund(request);
    // A query's "no such trade or refund" after "already paid" or a repeat
    // that moved no money says nothing yet: the earlier copy may not show.
    if (result.outcome == ChannelOutcome::NotFound)
        result.outcome = ChannelOutcome::Unknown;
    return result;
}

ChannelResult AlipayChannel::pay(const ChannelRequest &request)
{
    const Exchange exchange =
        call(Pay, {{QStringLiteral("out_trade_no"), request.reference},
                   {QStringLiteral("scene"), QStringLiteral("bar_code")},
                   {QStringLiteral("auth_code"), request.source},
                   {QStringLiteral("subject"), QStringLiteral("Payment %1").arg(request.reference)},
                   {QStringLiteral("total_amount"), formatMajorUnits(request.amount, Yuan)}});
    if (!exchange.answered)
        return unanswered(exchange);
    switch (exchange.reading.meaning) {
    case Meaning::Done:
        // "Already paid" says nothing of how much: the trade does.
        if (exchange.reading.subCode == QLatin1String("ACQ.TRADE_HAS_SUCCESS"))
            return queryTrade(request);
        return paidTrade(exchange, request.amount);
    case Meaning::Refused:
        // Alipay said no to this request: a business refusal, or a request
        // rejected as sent. Either may leave a trade open under the
        // out_trade_no for a copy still on its way to pay; once Alipay has
        // cancelled it, the refusal is final.
        if (const ChannelResult cancelled =
                cancel(request, request.firstAttempt && !exchange.resent);
            cancelled.outcome != ChannelOutcome::Closed)
            return cancelled;
        return {ChannelOutcome::Declined, declineCode(exchange.reading), exchange.why};
    case Meaning::NotFound:
    case Meaning::InDoubt:
        break;
    }
    return unknown(exchange.why);
}

ChannelResult AlipayChannel::refund(const ChannelRequest &request)
{
    const Exchange exchange =
        call(Refund, {{QStringLiteral("out_trade_no"), request.chargeId()},
                      {QStringLiteral("out_request_no"), request.reference},
                      {QStringLiteral("refund_amount"), formatMajorUnits(request.amount, Yuan)}});
    if (!exchange.answered)
        return unanswered(exchange);
    switch (exchange.reading.meaning) {
    case Meaning::Done:
        return {ChannelOutcome::Approved, {}, exchange.why};
    case Meaning::Refused:
        // A refusal is Alipay's word on this refund only when no other copy
        // of it was ever sent; otherwise an earlier copy may have been made
        // (and may even have caused the refusal): the refund query decides.
        if (!request.firstAttempt || exchange.resent)
            return refusedRefund(request, exchange.reading.subCode, exchange.why);
        // Alipay cannot close a refund; these refusals follow from the
        // request itself or the trade, so a copy of it is refused the same way.
        return {ChannelOutcome::Declined, declineCode(exchange.reading), exchange.why};
    case Meaning::NotFound:
        break;
    case Meaning::InDoubt:
        // A repeat that moved no money (fund_change=N) may repeat one that did.
        if (exchange.reading.code == QLatin1String("10000"))
            return queryRefund(request);
        break;
    }
    return unknown(exchange.why);
}

ChannelResult AlipayChannel::refusedRefund(const ChannelRequest &request, const QString &subCode,
                                           const QString &why)
{
    const ChannelResult known = queryRefund(request);
    if (known.outcome == ChannelOutcome::Approved)
        return known;
    return unknown(QStringLiteral("%1 (%2); an earlier copy of the refund may have been made, "
                                  "and the refund query does not yet show it (%3)")
                       .arg(why, subCode, known.message));
}

ChannelResult AlipayChannel::query(const ChannelRequest &operation)
{
    if (operation.operation == QLatin1String("refund"))
        return queryRefund(operation);
    if (operation.operation == QLatin1String("authorize") ||
        operation.operation == QLatin1String("capture"))
        return queryTrade(operation);
    return {ChannelOutcome::NotFound,
            {},
            QStringLiteral("Alipay has no %1 of a payment").arg(operation.operation)};
}

ChannelResult AlipayChannel::queryTrade(const ChannelRequest &operation, bool *unpaid)
{
    const Exchange exchange =
        call(TradeQuery, {{QStringLiteral("out_trade_no"), operation.chargeId()}});
    if (!exchange.answered)
        return unknown(exchange.why);
    if (unpaid)
        *unpaid = exchange.reading.meaning == Meaning::NotFound ||
                  exchange.fields.value(QStringLiteral("trade_status")).toString() ==
                      QLatin1String("WAIT_BUYER_PAY");
    switch (exchange.reading.meaning) {
    case Meaning::Done:
        return paidTrade(exchange, operation.amount);
    case Meaning::Refused:
        return {ChannelOutcome::Closed, {}, exchange.why}; // closed, and nothing was paid
    case Meaning::NotFound:
        return {ChannelOutcome::NotFound, {}, exchange.why};
    case Meaning::InDoubt:
        break;
    }
    return unknown(exchange.why);
}

ChannelResult AlipayChannel::queryRefund(const ChannelRequest &operation)
{
    const Exchange exchange =
        call(RefundQuery, {{QStringLiteral("out_trade_no"), operation.chargeId()},
                           {QStringLiteral("out_request_no"), operation.reference}});
    if (!exchange.answered)
        return unknown(exchange.why);
    switch (exchange.reading.meaning) {
    case Meaning::Done:
        if (!sameAmount(exchange.fields, "refund_amount", operation.amount))
            return unknown(exchange.why + QStringLiteral(": a different refund_amount"));
        return {ChannelOutcome::Approved, {}, exchange.why};
    case Meaning::NotFound:
        return {ChannelOutcome::NotFound, {}, exchange.why};
    case Meaning::Refused:
    case Meaning::InDoubt:
        break;
    }
    return unknown(exchange.why);
}

ChannelResult AlipayChannel::close(const ChannelRequest &operation)
{
    if (operation.operation == QLatin1String("refund")) {
        const ChannelResult known = queryRefund(operation);
        if (known.outcome == ChannelOutcome::Approved)
            return known;
        return unknown(QStringLiteral("Alipay cannot refuse a refund still on its way (%1)")
                           .arg(known.message));
    }
    if (operation.operation != QLatin1String("authorize"))
        return unknown(QStringLiteral("Alipay has no %1 to close").arg(operation.operation));
    // Cancel refunds a paid trade: only one Alipay says is unpaid is cancelled.
    bool unpaid = false;
    const ChannelResult known = queryTrade(operation, &unpaid);
    if (known.outcome == ChannelOutcome::Approved || known.outcome == ChannelOutcome::Closed)
        return known;
    if (!unpaid)
        return unknown(QStringLiteral("not cancelled: %1").arg(known.message));
    return cancel(operation, false);
}

ChannelResult AlipayChannel::cancel(const ChannelRequest &operation, bool justRefused)
{
    const Exchange exchange =
        call(Cancel, {{QStringLiteral("out_trade_no"), operation.chargeId()}});
    if (exchange.answered && exchange.reading.meaning == Meaning::Done) {
        // "close", or "refund": paid in the meantime and given back whole.
        const QString action = exchange.fields.value(QStringLiteral("action")).toString();
        if (!action.isEmpty())
            return {ChannelOutcome::Closed,
                    {},
                    QStringLiteral("%1 action=%2").arg(exchange.why, action)};
        // Alipay had no such trade, and says nothing of one a pay request
        // still on its way would create. None can be on its way when the only
        // request ever sent was just refused, or when the payment code is
        // too old to pay with.
        const qint64 age = QDateTime::currentSecsSinceEpoch() - operation.chargeCreatedEpoch;
        if (justRefused ||
            (operation.chargeCreatedEpoch > 0 && age > m_options.paymentCodeLifetimeSeconds))
            return {ChannelOutcome::Closed,
                    {},
                    QStringLiteral("%1: no trade, and none can come").arg(exchange.why)};
        return unknown(QStringLiteral("Alipay has no trade %1 to cancel; a pay request on its way "
                                      "could still make one for %2 s")
                           .arg(operation.chargeId())
                           .arg(m_options.paymentCodeLifetimeSeconds - age));
    }
    // Not cancelled (already paid, or no answer): what does the trade say now?
    const ChannelResult now = queryTrade(operation);
    if (now.outcome == ChannelOutcome::Approved || now.outcome == ChannelOutcome::Closed)
        return now;
    return unknown(QStringLiteral("Alipay did not cancel %1: %2; %3")
                       .arg(operation.chargeId(), exchange.why, now.message));
}

Result<ChannelFactory> alipayChannel(AlipayChannelOptions options)
{
    if (options.appId.isEmpty())
        return fieldError(QStringLiteral("alipay-app-id"), QStringLiteral("parameter_missing"),
                          QStringLiteral("--channel alipay needs --alipay-app-id"));
    if (!options.appPrivateKey.canSign())
        return fieldError(QStringLiteral("alipay-app-key"), QStringLiteral("key_invalid"),
                          QStringLiteral("--alipay-app-key must hold the app's private key"));
    const QUrl &gateway = options.gateway;
    if (!gateway.isValid() || gateway.host().isEmpty() || !HttpClient::refusal(gateway).isEmpty())
        return fieldError(
            QStringLiteral("alipay-gateway"), QStringLiteral("parameter_invalid"),
            QStringLiteral("--alipay-gateway %1: %2")
                .arg(gateway.toString(), HttpClient::refusal(gateway).isEmpty()
                                             ? QStringLiteral("not a URL keel can call")
                                             : HttpClient::refusal(gateway)));
    auto channel = std::make_shared<AlipayChannel>(std::move(options));
    return ChannelFactory([channel](const ConnectionSettings &) { return channel; });
}

} // namespace keel
