#include "core/saga/SagaService.h"

#include "core/db/LibpqConnection.h"
#include "core/db/PgTransaction.h"
#include "core/idempotency/Fingerprint.h"
#include "core/idempotency/IdempotencyKey.h"
#include "core/merchant/Merchant.h"
#include "core/saga/SagaMetrics.h"
#include "core/saga/SagaStore.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace keel {
namespace {

const QString Endpoint = QStringLiteral("POST /v1/sagas");

} // namespace

SagaService::SagaService(LibpqConnection &connection, IdempotencyPolicy policy, QString instance)
    : m_connection(connection), m_keys(connection, policy, std::move(instance))
{}

QByteArray SagaService::fingerprintOf(const SagaDefinition &definition)
{
    QJsonArray steps;
    for (const SagaStepDefinition &step : definition.steps) {
        QJsonObject json = step.toJson();
        json.insert(QStringLiteral("name"), step.name);
        json.insert(QStringLiteral("kind"), stepKindName(step.kind));
        steps.append(json);
    }
    const QJsonObject whole{
        {QStringLiteral("trans_type"), definition.transType},
        {QStringLiteral("name"), definition.name},
        {QStringLiteral("version"), definition.version},
        {QStringLiteral("business_key"), definition.businessKey.value_or(QString())},
        {QStringLiteral("stuck_after_seconds"), definition.stuckAfterSeconds},
        {QStringLiteral("max_compensation_rounds"), definition.maxCompensationRounds},
        {QStringLiteral("steps"), steps}};
    // QJsonObject keeps its keys sorted, so the compact form is canonical.
    return Fingerprint(Endpoint)
        .add(QStringLiteral("definition"),
             QString::fromUtf8(QJsonDocument(whole).toJson(QJsonDocument::Compact)))
        .hash();
}

SagaOutcome SagaService::start(const Merchant &merchant, const SagaDefinition &definition,
                               const IdempotencyKey &key, const QByteArray &fingerprint,
                               const SagaReplyRenderer &replies)
{
    const QByteArray keyHash = key.scopedHash(merchant.id);
    PgTransaction tx(m_connection);
    if (!tx.begun())
        return SagaOutcome::failure(tx.begun().error());
    Result<bool> reserved = m_keys.reserve(keyHash, merchant.id, Endpoint, fingerprint, 100);
    if (!reserved)
        return SagaOutcome::failure(reserved.error());
    if (!*reserved) {
        (void)tx.rollback();
        return answerTakenKey(keyHash, fingerprint);
    }
    Result<SagaRecord> saga = SagaStore(m_connection).insert(merchant.id, definition);
    if (!saga)
        return SagaOutcome::failure(saga.error());
    if (Status kept = m_keys.complete(keyHash, replies.render(*saga), saga->publicId); !kept)
        return SagaOutcome::failure(kept.error());
    if (Status committed = tx.commit(); !committed)
        return SagaOutcome::failure(committed.error());
    sagaMetrics::countFinished(saga->name, QStringLiteral("started"));
    SagaOutcome outcome = SagaOutcome::of(SagaOutcome::Kind::Saga);
    outcome.saga = *saga;
    return outcome;
}

SagaOutcome SagaService::answerTakenKey(const QByteArray &keyHash, const QByteArray &fingerprint)
{
    Result<std::optional<IdempotencyRecord>> found = m_keys.find(keyHash);
    if (!found)
        return SagaOutcome::failure(found.error());
    if (!found->has_value() || !(*found)->response)
        // Expired between the two looks, or another request holds it for
        // the instant of its transaction: the client tries again.
        return SagaOutcome::failure(codedError(ErrorKind::Failed,
                                               QString::fromLatin1(ErrorCode::RowsMoved),
                                               QStringLiteral("the key is being used right now")));
    if ((*found)->requestHash != fingerprint)
        return SagaOutcome::of(SagaOutcome::Kind::KeyReusedDifferently);
    SagaOutcome outcome = SagaOutcome::of(SagaOutcome::Kind::Replayed);
    outcome.stored = *(*found)->response;
    return outcome;
}

SagaOutcome SagaService::retrieve(const Merchant &merchant, const QString &publicId)
{
    Result<std::optional<SagaRecord>> saga =
        SagaStore(m_connection).findByPublicId(merchant.id, publicId);
    if (!saga)
        return SagaOutcome::failure(saga.error());
    if (!saga->has_value()) {
        SagaOutcome missing = SagaOutcome::of(SagaOutcome::Kind::NotFound);
        missing.reference = publicId;
        return missing;
    }
    Result<QList<SagaEvent>> events = SagaStore(m_connection).events((*saga)->id);
    if (!events)
        return SagaOutcome::failure(events.error());
    SagaOutcome outcome = SagaOutcome::of(SagaOutcome::Kind::Saga);
    outcome.saga = std::move(**saga);
    outcome.saga.events = *events;
    return outcome;
}

SagaOutcome SagaService::list(const Merchant &merchant, const SagaListFilter &filter)
{
    QByteArray after;
    if (filter.startingAfter) {
        Result<PgRows> cursor = m_connection.query(
            "SELECT id FROM keel.sagas WHERE public_id = $1 AND merchant_id = $2",
            {filter.startingAfter->toUtf8(), QByteArray::number(merchant.id)});
        if (!cursor)
            return SagaOutcome::failure(cursor.error());
        if (cursor->size() == 0) {
            SagaOutcome missing = SagaOutcome::of(SagaOutcome::Kind::NotFound);
            missing.reference = *filter.startingAfter;
            return missing;
        }
        after = cursor->value(0, 0);
    }
    Result<PgRows> ids = m_connection.query(
        "SELECT id FROM keel.sagas WHERE merchant_id = $1 "
        "  AND ($2::text IS NULL OR status = $2::text) AND ($3::bigint IS NULL OR id < $3::bigint) "
        "ORDER BY id DESC LIMIT $4",
        {QByteArray::number(merchant.id), filter.status ? filter.status->toUtf8() : QByteArray(),
         after, QByteArray::number(filter.limit + 1)});
    if (!ids)
        return SagaOutcome::failure(ids.error());
    SagaOutcome outcome = SagaOutcome::of(SagaOutcome::Kind::List);
    outcome.hasMore = ids->size() > filter.limit;
    SagaStore store(m_connection);
    for (int row = 0; row < std::min(ids->size(), filter.limit); ++row) {
        Result<std::optional<SagaRecord>> saga = store.load(ids->toInt64(row, 0));
        if (!saga)
            return SagaOutcome::failure(saga.error());
        if (saga->has_value())
            outcome.sagas.append(std::move(**saga));
    }
    return outcome;
}

} // namespace keel
