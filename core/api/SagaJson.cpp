#include "core/api/SagaJson.h"

#include "core/saga/SagaRecord.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace keel {
namespace {

QJsonValue seconds(qint64 epochMs)
{
    return epochMs > 0 ? QJsonValue(epochMs / 1000) : QJsonValue(QJsonValue::Null);
}

QJsonValue textOrNull(const QString &text)
{
    return text.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(text);
}

// Each attempt of `step`: when it started and, once it ended, how.
QJsonArray attemptsOf(const SagaRecord &saga, int step)
{
    QJsonArray attempts;
    for (const SagaEvent &event : saga.events) {
        if (event.step != step || !event.event.startsWith(QLatin1String("attempt_")))
            continue;
        const QJsonObject detail = QJsonDocument::fromJson(event.detailJson).object();
        if (event.event == QLatin1String("attempt_started")) {
            attempts.append(
                QJsonObject{{QStringLiteral("op"), detail.value(QStringLiteral("op"))},
                            {QStringLiteral("attempt"), detail.value(QStringLiteral("attempt"))},
                            {QStringLiteral("started_ms"), event.atMs},
                            {QStringLiteral("verdict"), QJsonValue::Null}});
            continue;
        }
        if (attempts.isEmpty())
            continue;
        QJsonObject last = attempts.last().toObject();
        for (const QString &key :
             {QStringLiteral("verdict"), QStringLiteral("status"), QStringLiteral("error"),
              QStringLiteral("response"), QStringLiteral("ms")})
            if (detail.contains(key))
                last.insert(key, detail.value(key));
        last.insert(QStringLiteral("ended_ms"), event.atMs);
        attempts.replace(attempts.size() - 1, last);
    }
    return attempts;
}

QJsonObject stepJson(const SagaRecord &saga, const StepRecord &step)
{
    QJsonObject json{{QStringLiteral("index"), step.index},
                     {QStringLiteral("name"), step.definition.name},
                     {QStringLiteral("kind"), stepKindName(step.definition.kind)},
                     {QStringLiteral("status"), step.status},
                     {QStringLiteral("attempts"), step.attempts},
                     {QStringLiteral("compensation_attempts"), step.compensationAttempts},
                     {QStringLiteral("last_error"), textOrNull(step.lastError)},
                     {QStringLiteral("last_response"), textOrNull(step.lastResponse)},
                     {QStringLiteral("result"), QJsonDocument::fromJson(step.resultJson).object()},
                     {QStringLiteral("started"), seconds(step.startedAtMs)},
                     {QStringLiteral("finished"), seconds(step.finishedAtMs)},
                     {QStringLiteral("compensated"), seconds(step.compensatedAtMs)}};
    if (!saga.events.isEmpty())
        json.insert(QStringLiteral("attempt_log"), attemptsOf(saga, step.index));
    return json;
}

QJsonObject sagaJson(const SagaRecord &saga)
{
    QJsonArray steps;
    for (const StepRecord &step : saga.steps)
        steps.append(stepJson(saga, step));
    return {{QStringLiteral("id"), saga.publicId},
            {QStringLiteral("object"), QStringLiteral("saga")},
            {QStringLiteral("trans_type"), saga.transType},
            {QStringLiteral("name"), saga.name},
            {QStringLiteral("version"), saga.definitionVersion},
            {QStringLiteral("business_key"), textOrNull(saga.businessKey)},
            {QStringLiteral("status"), saga.status},
            {QStringLiteral("current_step"), saga.currentStep},
            {QStringLiteral("charge"), textOrNull(saga.chargePublicId)},
            {QStringLiteral("compensation_rounds"), saga.compensationRounds},
            {QStringLiteral("last_error"), textOrNull(saga.lastError)},
            {QStringLiteral("created"), seconds(saga.createdAtMs)},
            {QStringLiteral("updated"), seconds(saga.updatedAtMs)},
            {QStringLiteral("finished"), seconds(saga.finishedAtMs)},
            {QStringLiteral("steps"), steps}};
}

} // namespace

QByteArray renderSaga(const SagaRecord &saga)
{
    return QJsonDocument(sagaJson(saga)).toJson(QJsonDocument::Compact);
}

QByteArray renderSagaList(const QList<SagaRecord> &sagas, bool hasMore)
{
    QJsonArray data;
    for (const SagaRecord &saga : sagas)
        data.append(sagaJson(saga));
    return QJsonDocument(QJsonObject{{QStringLiteral("object"), QStringLiteral("list")},
                                     {QStringLiteral("url"), QStringLiteral("/v1/sagas")},
                                     {QStringLiteral("has_more"), hasMore},
                                     {QStringLiteral("data"), data}})
        .toJson(QJsonDocument::Compact);
}

} // namespace keel
