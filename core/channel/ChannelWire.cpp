#include "core/channel/ChannelWire.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

namespace keel::ChannelWire {
namespace {

Error badField(const char *field, const QString &what)
{
    return fieldError(QString::fromLatin1(field), QStringLiteral("parameter_invalid"),
                      QStringLiteral("%1 %2").arg(QString::fromLatin1(field), what));
}

} // namespace

QByteArray encodeRequest(const ChannelRequest &request)
{
    QJsonObject object{{QStringLiteral("reference"), request.reference},
                       {QStringLiteral("operation"), request.operation},
                       {QStringLiteral("amount"), request.amount},
                       {QStringLiteral("currency"), request.currency},
                       {QStringLiteral("source"), request.source},
                       {QStringLiteral("capture"), request.capture}};
    if (!request.chargeReference.isEmpty())
        object.insert(QStringLiteral("charge"), request.chargeReference);
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

Result<ChannelRequest> decodeRequest(const QByteArray &json)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (!document.isObject())
        return makeError(
            ErrorKind::Usage,
            QStringLiteral("the body must be a JSON object: %1").arg(parseError.errorString()));
    const QJsonObject object = document.object();
    ChannelRequest request;
    request.reference = object.value(QLatin1String("reference")).toString();
    request.operation = object.value(QLatin1String("operation")).toString();
    request.amount = object.value(QLatin1String("amount")).toInteger(-1);
    request.currency = object.value(QLatin1String("currency")).toString();
    request.source = object.value(QLatin1String("source")).toString();
    request.capture = object.value(QLatin1String("capture")).toBool(true);
    request.chargeReference = object.value(QLatin1String("charge")).toString();
    if (request.reference.isEmpty() || request.reference.size() > 64)
        return badField("reference", QStringLiteral("must be 1 to 64 characters"));
    if (request.chargeReference.size() > 64)
        return badField("charge", QStringLiteral("must be at most 64 characters"));
    static const QStringList operations{QStringLiteral("authorize"), QStringLiteral("capture"),
                                        QStringLiteral("refund"), QStringLiteral("void")};
    if (!operations.contains(request.operation))
        return badField("operation", QStringLiteral("must be authorize, capture, refund or void"));
    if (request.amount < 0)
        return badField("amount", QStringLiteral("must be a whole number of minor units >= 0"));
    if (request.currency.size() != 3)
        return badField("currency", QStringLiteral("must be a three-letter code"));
    return request;
}

QByteArray encodeResult(const ChannelResult &result)
{
    QJsonObject object{{QStringLiteral("outcome"), channelOutcomeName(result.outcome)},
                       {QStringLiteral("message"), result.message}};
    if (!result.declineCode.isEmpty())
        object.insert(QStringLiteral("decline_code"), result.declineCode);
    if (!result.channelReference.isEmpty())
        object.insert(QStringLiteral("channel_reference"), result.channelReference);
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

ChannelResult decodeResult(const QByteArray &json)
{
    const QJsonObject object = QJsonDocument::fromJson(json).object();
    return {channelOutcomeNamed(object.value(QLatin1String("outcome")).toString()),
            object.value(QLatin1String("decline_code")).toString(),
            object.value(QLatin1String("message")).toString(),
            object.value(QLatin1String("channel_reference")).toString()};
}

QByteArray operationPath(const QString &reference, const QString &operation)
{
    return "/v1/operations/" + QUrl::toPercentEncoding(reference) + '/' +
           QUrl::toPercentEncoding(operation);
}

QByteArray closePath(const QString &reference, const QString &operation)
{
    return operationPath(reference, operation) + "/close";
}

} // namespace keel::ChannelWire
