#include "devkit/sim/OrderSaga.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace keel {
namespace {

// Short steps and quick retries by default: traffic meant to meet faults,
// not wait them out.
QJsonObject retryPolicy(int backoffMs)
{
    return {{QStringLiteral("attempts"), 6},
            {QStringLiteral("backoff_ms"), backoffMs},
            {QStringLiteral("max_backoff_ms"), std::max(500, 2 * backoffMs)},
            {QStringLiteral("timeout_ms"), 2000}};
}

} // namespace

QByteArray orderSagaDefinition(const QString &participant, qint64 amount, const QString &currency,
                               const QString &businessKey, int backoffMs)
{
    const auto call = [&](const char *name, const char *action, const char *undo) {
        QJsonObject step{
            {QStringLiteral("name"), QString::fromLatin1(name)},
            {QStringLiteral("action_url"), QString(participant + QLatin1String(action))},
            {QStringLiteral("retry"), retryPolicy(backoffMs)},
            {QStringLiteral("compensation_retry"), retryPolicy(backoffMs)}};
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
                             {QStringLiteral("compensation_retry"), retryPolicy(backoffMs)}};
    const QJsonObject saga{
        {QStringLiteral("name"), QStringLiteral("order")},
        {QStringLiteral("business_key"), businessKey},
        {QStringLiteral("steps"), QJsonArray{call("reserve", "/reserve", "/release"), charge,
                                             call("confirm", "/confirm", "/unconfirm"),
                                             call("notify", "/notify", nullptr)}}};
    return QJsonDocument(saga).toJson(QJsonDocument::Compact);
}

} // namespace keel
