#include "core/channel/WechatPayApi.h"

#include "core/signing/RsaKey.h"

#include <QHash>
#include <QSet>

namespace keel::WechatPayApi {
namespace {

const QByteArray Scheme = "WECHATPAY2-SHA256-RSA2048";

bool isQuery(Operation operation)
{
    return operation == Operation::TradeQuery || operation == Operation::RefundQuery;
}

// Error codes that say the request was not carried out, by operation: a
// business refusal, or a request rejected as sent. What is not listed is in
// doubt.
const QSet<QString> &refusals(Operation operation)
{
    // Refused before any payment: the request, the merchant's rights, the
    // payment code, or the payer's means. Not here: USERPAYING (the payer is
    // entering a password) and ORDERPAID (a trade exists under this number).
    static const QSet<QString> pay{QStringLiteral("PARAM_ERROR"),
                                   QStringLiteral("INVALID_REQUEST"),
                                   QStringLiteral("SIGN_ERROR"),
                                   QStringLiteral("NO_AUTH"),
                                   QStringLiteral("MCH_NOT_EXISTS"),
                                   QStringLiteral("APPID_MCHID_NOT_MATCH"),
                                   QStringLiteral("RULE_LIMIT"),
                                   QStringLiteral("TRADE_ERROR"),
                                   QStringLiteral("NOT_ENOUGH"),
                                   QStringLiteral("NOTENOUGH"),
                                   QStringLiteral("AUTH_CODE_ERROR"),
                                   QStringLiteral("AUTH_CODE_INVALID"),
                                   QStringLiteral("AUTH_CODE_EXPIRE"),
                                   QStringLiteral("AUTHCODEEXPIRE"),
                                   QStringLiteral("NOTSUPORTCARD"),
                                   QStringLiteral("BUYER_MISMATCH"),
                                   QStringLiteral("ORDER_CLOSED"),
                                   QStringLiteral("ORDERCLOSED"),
                                   QStringLiteral("ORDER_REVERSED"),
                                   QStringLiteral("ORDERREVERSED"),
                                   QStringLiteral("PAYER_ACCOUNT_ABNORMAL")};
    static const QSet<QString> refund{QStringLiteral("PARAM_ERROR"),
                                      QStringLiteral("INVALID_REQUEST"),
                                      QStringLiteral("SIGN_ERROR"),
                                      QStringLiteral("NO_AUTH"),
                                      QStringLiteral("MCH_NOT_EXISTS"),
                                      QStringLiteral("NOT_ENOUGH"),
                                      QStringLiteral("USER_ACCOUNT_ABNORMAL"),
                                      QStringLiteral("RESOURCE_NOT_EXISTS"),
                                      QStringLiteral("ORDER_NOT_EXIST")};
    // Not carried out: the order cannot be reversed (paid too long ago,
    // closed, reversed already) or the request was rejected as sent.
    static const QSet<QString> reverse{
        QStringLiteral("PARAM_ERROR"),  QStringLiteral("INVALID_REQUEST"),
        QStringLiteral("SIGN_ERROR"),   QStringLiteral("NO_AUTH"),
        QStringLiteral("TRADE_ERROR"),  QStringLiteral("ORDERPAID"),
        QStringLiteral("ORDER_PAID"),   QStringLiteral("ORDER_CLOSED"),
        QStringLiteral("ORDERCLOSED"),  QStringLiteral("ORDER_REVERSED"),
        QStringLiteral("ORDERREVERSED")};
    static const QSet<QString> none;
    switch (operation) {
    case Operation::Pay:
        return pay;
    case Operation::Refund:
        return refund;
    case Operation::Reverse:
        return reverse;
    case Operation::TradeQuery:
    case Operation::RefundQuery:
        break;
    }
    return none;
}

Reading read(Meaning meaning, const QString &code, const QString &why)
{
    return Reading{meaning, code, why};
}

// A 2xx answer: what the order's trade_state or the refund's status says.
Reading success(Operation operation, const QJsonObject &fields, const QString &said)
{
    switch (operation) {
    case Operation::Pay:
    case Operation::TradeQuery: {
        const QString state = fields.value(QStringLiteral("trade_state")).toString();
        const QString why = QStringLiteral("%1 %2").arg(said, state);
        // REFUND: paid, and (partly) refunded since; the payment stands.
        if (state == QLatin1String("SUCCESS") || state == QLatin1String("REFUND"))
            return read(Meaning::Done, state, why);
        // Closed unpaid, or reversed (any payment given back whole).
        if (state == QLatin1String("CLOSED") || state == QLatin1String("REVOKED"))
            return read(Meaning::Refused, state, why);
        // NOTPAY, USERPAYING, PAYERROR (one attempt failed; the payer may
        // try again until the order is reversed), and anything new.
        return read(Meaning::InDoubt, state, why);
    }
    case Operation::Refund:
    case Operation::RefundQuery: {
        const QString status = fields.value(QStringLiteral("status")).toString();
        const QString why = QStringLiteral("%1 %2").arg(said, status);
        if (status == QLatin1String("SUCCESS"))
            return read(Meaning::Done, status, why);
        if (status == QLatin1String("CLOSED"))
            return read(Meaning::Refused, status, why);
        // PROCESSING, ABNORMAL (the payer's account cannot take it back yet).
        return read(Meaning::InDoubt, status, why);
    }
    case Operation::Reverse:
        break;
    }
    return read(Meaning::Done, {}, said);
}

} // namespace

QString operationName(Operation operation)
{
    switch (operation) {
    case Operation::Pay:
        return QStringLiteral("codepay");
    case Operation::TradeQuery:
        return QStringLiteral("query");
    case Operation::Reverse:
        return QStringLiteral("reverse");
    case Operation::Refund:
        return QStringLiteral("refund");
    case Operation::RefundQuery:
        return QStringLiteral("refund-query");
    }
    return {};
}

QByteArray requestMessage(const QByteArray &method, const QByteArray &pathAndQuery,
                          const QByteArray &timestamp, const QByteArray &nonce,
                          const QByteArray &body)
{
    return method + '\n' + pathAndQuery + '\n' + timestamp + '\n' + nonce + '\n' + body + '\n';
}

Result<QByteArray> authorize(const QByteArray &method, const QByteArray &pathAndQuery,
                             const QByteArray &body, const QString &mchid, const QByteArray &serial,
                             const RsaKey &merchantKey, qint64 now, const QByteArray &nonce)
{
    const QByteArray timestamp = QByteArray::number(now);
    Result<QByteArray> signature =
        merchantKey.signSha256(requestMessage(method, pathAndQuery, timestamp, nonce, body));
    if (!signature)
        return signature.error();
    return QByteArray(Scheme + " mchid=\"" + mchid.toUtf8() + "\",nonce_str=\"" + nonce +
                      "\",signature=\"" + signature->toBase64() + "\",timestamp=\"" + timestamp +
                      "\",serial_no=\"" + serial + '"');
}

std::optional<Authorization> readAuthorization(const QByteArray &header)
{
    if (!header.startsWith(QByteArray(Scheme + ' ')))
        return std::nullopt;
    QHash<QByteArray, QByteArray> fields;
    // The values are quoted and hold no quotes or commas (base64, hex, digits).
    for (const QByteArray &pair : header.mid(Scheme.size() + 1).split(',')) {
        const qsizetype equals = pair.indexOf('=');
        const QByteArray value = equals < 0 ? QByteArray() : pair.mid(equals + 1).trimmed();
        if (equals < 0 || value.size() < 2 || !value.startsWith('"') || !value.endsWith('"'))
            return std::nullopt;
        fields.insert(pair.left(equals).trimmed(), value.mid(1, value.size() - 2));
    }
    Authorization authorization{QString::fromUtf8(fields.value("mchid")), fields.value("nonce_str"),
                                fields.value("timestamp"), fields.value("serial_no"),
                                fields.value("signature")};
    if (authorization.mchid.isEmpty() || authorization.nonce.isEmpty() ||
        authorization.timestamp.isEmpty() || authorization.serial.isEmpty() ||
        authorization.signature.isEmpty())
        return std::nullopt;
    return authorization;
}

Reading classify(Operation operation, int status, const QJsonObject &fields)
{
    const QString code = fields.value(QStringLiteral("code")).toString();
    const QString said = QStringLiteral("WeChat Pay %1: HTTP %2 %3 %4")
                             .arg(operationName(operation))
                             .arg(status)
                             .arg(code, fields.value(QStringLiteral("message")).toString())
                             .simplified();
    // A success names no error; a reverse's names its order (the adapter
    // checks which), so an empty 204 proves nothing.
    if ((status == 200 || (status == 204 && operation != Operation::Reverse)) && code.isEmpty())
        return success(operation, fields, said);
    // Not there (yet) is all a query can say; a reverse of an order WeChat
    // Pay does not know cannot stop a payment still on its way to it.
    if (status == 404 && (isQuery(operation) || operation == Operation::Reverse) &&
        (code == QLatin1String("ORDER_NOT_EXIST") || code == QLatin1String("ORDERNOTEXIST") ||
         code == QLatin1String("RESOURCE_NOT_EXISTS")))
        return read(Meaning::NotFound, code, said);
    // A pay request for an order already paid: the order says for how much.
    if (operation == Operation::Pay &&
        (code == QLatin1String("ORDERPAID") || code == QLatin1String("ORDER_PAID")))
        return read(Meaning::Done, code, said);
    // A 4xx the operation lists left the money where it was; 202
    // (USERPAYING), 429 and 5xx may or may not have moved it.
    if (status >= 400 && status < 500 && refusals(operation).contains(code))
        return read(Meaning::Refused, code, said);
    return read(Meaning::InDoubt, code, said);
}

} // namespace keel::WechatPayApi
