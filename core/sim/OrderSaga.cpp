#include "core/sim/OrderSaga.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace keel {
namespace {

// Short steps and quick retries: traffic meant to meet faults, not wait them out.
QJsonObject retryPolicy()
{
    return {{QStringLiteral("attempts"), 6},
            {QStringLiteral("backoff_ms"), 50},
            {QStringLiteral("max_backoff_ms"), 500},
            {QStringLiteral("timeout_ms"), 2000}};
}

} // namespace

QByteArray orderSagaDefinition(const QString &participant, qint64 amount, const QString &currency,
                               const QString &businessKey)
{
    const auto call = [&](const char *name, const char *action, const char *undo) {
        QJsonObject step{
            {QStringLiteral("name"), QString::fromLatin1(name)},
            {QStringLiteral("action_url"), QString(participant + QLatin1String(action))},
            {QStringLiteral("retry"), retryPolicy()},
            {QStringLiteral("compensation_retry"), retryPolicy()}};
        if (undo)
            step.insert(QStringLiteral("compensate_url"),
                        QString(participant + QLatin1String(undo)));
        return step;
    };
    const QJsonObject charge{{QStringLiteral("name"), QStringLiteral("charge")},
                             {QStringLiteral("kind"), QStringLiteral("charge")},
                             {QStringLiteral("amount"), amount},
                             {QStringLiteral("currency"), currency},
                             {QStringLiteral("source"), QStringLiteral("tok_visa")},
                             {QStringLiteral("compensation_retry"), retryPolicy()}};
    const QJsonObject saga{
        {QStringLiteral("name"), QStringLiteral("order")},
        {QStringLiteral("business_key"), businessKey},
        {QStringLiteral("steps"), QJsonArray{call("reserve", "/reserve", "/release"), charge,
                                             call("confirm", "/confirm", "/unconfirm"),
                                             call("notify", "/notify", nullptr)}}};
    return QJsonDocument(saga).toJson(QJsonDocument::Compact);
}

} // namespace keel
