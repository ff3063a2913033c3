#include "core/channel/AlipayOpenApi.h"

#include "core/signing/RsaKey.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTimeZone>
#include <QUrl>

#include <algorithm>

namespace keel::AlipayOpenApi {
namespace {

using Parameters = AlipaySignature::Parameters;

// Where the JSON value starting at `from` ends (one past it), or -1. Only
// the bounds: the value itself is parsed by QJsonDocument.
qsizetype valueEnd(const QByteArray &text, qsizetype from)
{
    int depth = 0;
    bool inString = false;
    for (qsizetype i = from; i < text.size(); ++i) {
        const char c = text.at(i);
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"') {
                inString = false;
                if (depth == 0)
                    return i + 1;
            }
            continue;
        }
        if (c == '"')
            inString = true;
        else if (c == '{' || c == '[')
            ++depth;
        else if (c == '}' || c == ']') {
            if (--depth == 0)
                return i + 1;
            if (depth < 0)
                return i; // a scalar ended by its container
        } else if (depth == 0 && c == ',')
            return i;
    }
    return -1;
}

// The raw text of each top-level member of an object, by name.
QHash<QString, QByteArray> topLevelMembers(const QByteArray &text)
{
    QHash<QString, QByteArray> members;
    qsizetype i = text.indexOf('{');
    if (i < 0)
        return members;
    ++i;
    while (i < text.size()) {
        const qsizetype keyStart = text.indexOf('"', i);
        if (keyStart < 0)
            break;
        const qsizetype keyEnd = valueEnd(text, keyStart);
        const qsizetype colon = keyEnd < 0 ? -1 : text.indexOf(':', keyEnd);
        if (colon < 0)
            break;
        qsizetype valueStart = colon + 1;
        while (valueStart < text.size() && QChar::isSpace(uchar(text.at(valueStart))))
            ++valueStart;
        const qsizetype end = valueEnd(text, valueStart);
        if (end < 0)
            break;
        const QJsonDocument key =
            QJsonDocument::fromJson('[' + text.mid(keyStart, keyEnd - keyStart) + ']');
        members.insert(key.array().at(0).toString(),
                       text.mid(valueStart, end - valueStart).trimmed());
        i = end;
        while (i < text.size() && text.at(i) != ',' && text.at(i) != '}')
            ++i;
        if (i >= text.size() || text.at(i) == '}')
            break;
        ++i;
    }
    return members;
}

bool isQuery(const QString &method)
{
    return method == QLatin1String("alipay.trade.query") ||
           method == QLatin1String("alipay.trade.fastpay.refund.query");
}

// Business refusals (code 40004) that leave the money where it was, by
// method; what is not listed is in doubt.
const QSet<QString> &refusals(const QString &method)
{
    static const QSet<QString> pay{QStringLiteral("ACQ.INVALID_PARAMETER"),
                                   QStringLiteral("ACQ.ACCESS_FORBIDDEN"),
                                   QStringLiteral("ACQ.EXIST_FORBIDDEN_WORD"),
                                   QStringLiteral("ACQ.PARTNER_ERROR"),
                                   QStringLiteral("ACQ.TOTAL_FEE_EXCEED"),
                                   QStringLiteral("ACQ.PAYMENT_AUTH_CODE_INVALID"),
                                   QStringLiteral("ACQ.TRADE_HAS_CLOSE"),
                                   QStringLiteral("ACQ.BUYER_BALANCE_NOT_ENOUGH"),
                                   QStringLiteral("ACQ.BUYER_BANKCARD_BALANCE_NOT_ENOUGH"),
                                   QStringLiteral("ACQ.ERROR_BALANCE_PAYMENT_DISABLE"),
                                   QStringLiteral("ACQ.BUYER_SELLER_EQUAL"),
                                   QStringLiteral("ACQ.BUYER_ENABLE_STATUS_FORBID"),
                                   QStringLiteral("ACQ.PAYMENT_FAIL"),
                                   QStringLiteral("ACQ.BUYER_PAYMENT_AMOUNT_DAY_LIMIT_ERROR"),
                                   QStringLiteral("ACQ.BUYER_PAYMENT_AMOUNT_MONTH_LIMIT_ERROR"),
                                   QStringLiteral("ACQ.BEYOND_PAY_RESTRICTION"),
                                   QStringLiteral("ACQ.BEYOND_PER_RECEIPT_RESTRICTION"),
                                   QStringLiteral("ACQ.SELLER_BEEN_BLOCKED"),
                                   QStringLiteral("ACQ.ERROR_BUYER_CERTIFY_LEVEL_LIMIT"),
                                   QStringLiteral("ACQ.PAYMENT_REQUEST_HAS_RISK"),
                                   QStringLiteral("ACQ.NO_PAYMENT_INSTRUMENTS_AVAILABLE")};
    // Not here: TRADE_BUYER_NOT_MATCH and TRADE_STATUS_ERROR name a trade
    // that exists under this out_trade_no, which may have been paid.
    static const QSet<QString> refund{QStringLiteral("ACQ.INVALID_PARAMETER"),
                                      QStringLiteral("ACQ.SELLER_BALANCE_NOT_ENOUGH"),
                                      QStringLiteral("ACQ.REFUND_AMT_NOT_EQUAL_TOTAL"),
                                      QStringLiteral("ACQ.REASON_TRADE_BEEN_FREEZEN"),
                                      QStringLiteral("ACQ.TRADE_NOT_EXIST"),
                                      QStringLiteral("ACQ.TRADE_HAS_FINISHED"),
                                      QStringLiteral("ACQ.TRADE_STATUS_ERROR"),
                                      QStringLiteral("ACQ.REASON_TRADE_REFUND_FEE_ERR"),
                                      QStringLiteral("ACQ.TRADE_NOT_ALLOW_REFUND"),
                                      QStringLiteral("ACQ.REFUND_FEE_ERROR"),
                                      QStringLiteral("ACQ.BUYER_ERROR")};
    static const QSet<QString> none;
    if (method == QLatin1String("alipay.trade.pay"))
        return pay;
    if (method == QLatin1String("alipay.trade.refund"))
        return refund;
    return none;
}

Reading read(Meaning meaning, const QString &code, const QString &subCode, QString why)
{
    return Reading{meaning, code, subCode, std::move(why)};
}

} // namespace

Result<Parameters> signedCall(const Call &call, const RsaKey &appPrivateKey)
{
    // Beijing time has had no daylight saving since 1991: a fixed offset
    // needs no time zone database on the machine.
    const QString timestamp =
        call.at.toTimeZone(QTimeZone(8 * 3600)).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    Parameters parameters{
        {QStringLiteral("app_id"), call.appId},
        {QStringLiteral("method"), call.method},
        {QStringLiteral("format"), QStringLiteral("JSON")},
        {QStringLiteral("charset"), QStringLiteral("utf-8")},
        {QStringLiteral("sign_type"), QStringLiteral("RSA2")},
        {QStringLiteral("timestamp"), timestamp},
        {QStringLiteral("version"), QStringLiteral("1.0")},
        {QStringLiteral("biz_content"),
         QString::fromUtf8(QJsonDocument(call.bizContent).toJson(QJsonDocument::Compact))}};
    if (!call.notifyUrl.isEmpty())
        parameters.append({QStringLiteral("notify_url"), call.notifyUrl});
    Result<QString> sign = AlipaySignature::signRequest(parameters, appPrivateKey);
    if (!sign)
        return sign.error();
    parameters.append({QStringLiteral("sign"), *sign});
    return parameters;
}

QByteArray formBody(const Parameters &parameters)
{
    QByteArray body;
    for (const auto &[key, value] : parameters) {
        if (!body.isEmpty())
            body += '&';
        body += QUrl::toPercentEncoding(key) + '=' + QUrl::toPercentEncoding(value);
    }
    return body;
}

Result<Answer> readAnswer(const QByteArray &body, const QString &method)
{
    const QJsonDocument whole = QJsonDocument::fromJson(body);
    if (!whole.isObject())
        return makeError(ErrorKind::Failed, QStringLiteral("Alipay's answer is not a JSON object"));
    const QString nodeName = QString(method).replace(u'.', u'_') + QStringLiteral("_response");
    const QHash<QString, QByteArray> members = topLevelMembers(body);
    Answer answer;
    answer.errorNode =
        !members.contains(nodeName) && members.contains(QStringLiteral("error_response"));
    const QString found = answer.errorNode ? QStringLiteral("error_response") : nodeName;
    answer.node = members.value(found);
    // Read from the bytes the signature covers, not from a parse of the
    // whole body, which could hold another copy of the node.
    answer.fields = QJsonDocument::fromJson(answer.node).object();
    answer.sign = whole.object().value(QStringLiteral("sign")).toString().toLatin1();
    if (answer.node.isEmpty() || !answer.node.startsWith('{'))
        return makeError(ErrorKind::Failed,
                         QStringLiteral("Alipay's answer has no %1").arg(nodeName));
    return answer;
}

SignatureVerdict verify(const Answer &answer, const RsaKey &alipayPublicKey)
{
    return AlipaySignature::verifyResponse(answer.node, answer.sign, alipayPublicKey);
}

Reading classify(const QString &method, const QJsonObject &fields)
{
    const QString code = fields.value(QStringLiteral("code")).toString();
    const QString subCode = fields.value(QStringLiteral("sub_code")).toString();
    const QString said = QStringLiteral("Alipay %1: %2 %3 %4")
                             .arg(method, code, subCode,
                                  fields.value(QStringLiteral("sub_msg"))
                                      .toString(fields.value(QStringLiteral("msg")).toString()))
                             .simplified();
    if (code == QLatin1String("10000")) {
        if (method == QLatin1String("alipay.trade.query")) {
            const QString status = fields.value(QStringLiteral("trade_status")).toString();
            if (status == QLatin1String("TRADE_SUCCESS") ||
                status == QLatin1String("TRADE_FINISHED"))
                return read(Meaning::Done, code, subCode, said + QStringLiteral(" ") + status);
            // Closed unpaid, or paid and refunded whole (or cancelled): only
            // a trade that shows no payment left the money where it was.
            const QString buyerPaid = fields.value(QStringLiteral("buyer_pay_amount")).toString();
            const bool paid = fields.contains(QStringLiteral("send_pay_date")) ||
                              fields.contains(QStringLiteral("gmt_payment")) ||
                              std::any_of(buyerPaid.cbegin(), buyerPaid.cend(), [](QChar digit) {
                                  return digit >= u'1' && digit <= u'9';
                              });
            if (status == QLatin1String("TRADE_CLOSED"))
                return read(paid ? Meaning::InDoubt : Meaning::Refused, code, subCode,
                            said + QStringLiteral(" ") + status);
            return read(Meaning::InDoubt, code, subCode, said + QStringLiteral(" ") + status);
        }
        if (method == QLatin1String("alipay.trade.fastpay.refund.query")) {
            // Data and a status that is empty or REFUND_SUCCESS: refunded;
            // no data: Alipay has no such refund.
            const QString status = fields.value(QStringLiteral("refund_status")).toString();
            const bool data = fields.contains(QStringLiteral("refund_amount"));
            if (data && (status.isEmpty() || status == QLatin1String("REFUND_SUCCESS")))
                return read(Meaning::Done, code, subCode, said);
            if (!data)
                return read(Meaning::NotFound, code, subCode, said);
            return read(Meaning::InDoubt, code, subCode, said + QStringLiteral(" ") + status);
        }
        // A cancel Alipay asks to be repeated has not finished.
        if (method == QLatin1String("alipay.trade.cancel") &&
            fields.value(QStringLiteral("retry_flag")).toString() == QLatin1String("Y"))
            return read(Meaning::InDoubt, code, subCode, said + QStringLiteral(" retry_flag=Y"));
        // A refund that moved no money this time is a repeat of one that did,
        // or not: only the refund query says.
        if (method == QLatin1String("alipay.trade.refund") &&
            fields.value(QStringLiteral("fund_change")).toString() != QLatin1String("Y"))
            return read(Meaning::InDoubt, code, subCode, said + QStringLiteral(" fund_change=N"));
        return read(Meaning::Done, code, subCode, said);
    }
    if (code == QLatin1String("40004")) {
        // Not there yet is all a query can say; a close of a trade Alipay
        // does not know cannot stop a payment still on its way to it.
        if (subCode == QLatin1String("ACQ.TRADE_NOT_EXIST") && isQuery(method))
            return read(Meaning::NotFound, code, subCode, said);
        if (subCode == QLatin1String("ACQ.TRADE_HAS_SUCCESS") &&
            method == QLatin1String("alipay.trade.pay"))
            return read(Meaning::Done, code, subCode, said);
        if (refusals(method).contains(subCode))
            return read(Meaning::Refused, code, subCode, said);
        return read(Meaning::InDoubt, code, subCode, said);
    }
    // The request was rejected as sent (parameters, signature, permission):
    // the method never ran. For a query that says nothing of the money.
    if (code == QLatin1String("40001") || code == QLatin1String("40002") ||
        code == QLatin1String("40006") || code == QLatin1String("20001"))
        return read(isQuery(method) ? Meaning::InDoubt : Meaning::Refused, code, subCode, said);
    // 10003 (waiting for the buyer), 20000 (service unavailable), and
    // anything unknown.
    return read(Meaning::InDoubt, code, subCode, said);
}

} // namespace keel::AlipayOpenApi
