#include "core/api/SagaEndpoints.h"

#include "core/api/ApiError.h"
#include "core/api/SagaJson.h"
#include "core/api/StripeReplies.h"
#include "core/idempotency/IdempotencyKey.h"
#include "core/merchant/Merchant.h"
#include "core/net/HttpRequest.h"
#include "core/payment/PaymentContext.h"
#include "core/payment/PaymentOutcome.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QUrlQuery>

namespace keel {
namespace {

using Kind = SagaOutcome::Kind;

HttpResponse invalid(const QString &param, const QString &message)
{
    ApiError error;
    error.code = QStringLiteral("parameter_invalid");
    error.param = param;
    error.message = message;
    return error.response();
}

} // namespace

SagaEndpoints::SagaEndpoints(const PaymentContext &context, const StripeReplies &replies)
    : m_context(context), m_replies(replies)
{}

SagaService SagaEndpoints::service(LibpqConnection &connection) const
{
    return SagaService(connection, m_context.idempotency, m_context.instance);
}

StoredResponse SagaEndpoints::render(const SagaRecord &saga) const
{
    HttpResponse response = jsonResponse(200, renderSaga(saga));
    return {response.status, response.headers, response.body};
}

HttpResponse SagaEndpoints::respond(const SagaOutcome &outcome) const
{
    switch (outcome.kind) {
    case Kind::Saga:
        return jsonResponse(200, renderSaga(outcome.saga));
    case Kind::List:
        return jsonResponse(200, renderSagaList(outcome.sagas, outcome.hasMore));
    case Kind::NotFound: {
        ApiError error;
        error.status = 404;
        error.code = QStringLiteral("resource_missing");
        error.param = QStringLiteral("id");
        error.message = QStringLiteral("no such saga: '%1'").arg(outcome.reference);
        return error.response();
    }
    case Kind::Replayed: {
        PaymentOutcome replay = PaymentOutcome::of(PaymentOutcome::Kind::Replayed);
        replay.stored = outcome.stored;
        return m_replies.respond(replay);
    }
    case Kind::KeyReusedDifferently:
        return m_replies.respond(PaymentOutcome::of(PaymentOutcome::Kind::KeyReusedDifferently));
    case Kind::StoreUnavailable:
        break;
    }
    return m_replies.respond(PaymentOutcome::failure(outcome.error));
}

HttpResponse SagaEndpoints::create(LibpqConnection &connection, const Merchant &merchant,
                                   const HttpRequest &request, const std::optional<QByteArray> &key,
                                   bool tcc) const
{
    Result<IdempotencyKey> idempotencyKey =
        IdempotencyKey::parse(key.value_or(QByteArray()), key.has_value());
    if (!idempotencyKey)
        return invalidRequest(idempotencyKey.error()).response();
    const QByteArray type =
        request.header("content-type").value_or(QByteArray()).split(';').constFirst().trimmed();
    if (type.toLower() != "application/json")
        return invalid(QStringLiteral("Content-Type"),
                       QStringLiteral("a saga is posted as JSON: send Content-Type: "
                                      "application/json"));
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject())
        return invalid(
            QString(),
            QStringLiteral("the body must be one JSON object (%1)").arg(parseError.errorString()));
    Result<SagaDefinition> definition =
        tcc ? SagaDefinition::parseTcc(document.object())
            : SagaDefinition::parse(document.object(), m_context.currencies,
                                    merchant.maxChargeAmount);
    if (!definition)
        return invalidRequest(definition.error()).response();
    return respond(service(connection)
                       .start(merchant, *definition, *idempotencyKey,
                              SagaService::fingerprintOf(*definition), *this));
}

HttpResponse SagaEndpoints::retrieve(LibpqConnection &connection, const Merchant &merchant,
                                     const QString &publicId) const
{
    return respond(service(connection).retrieve(merchant, publicId));
}

HttpResponse SagaEndpoints::list(LibpqConnection &connection, const Merchant &merchant,
                                 const HttpRequest &request) const
{
    const QUrlQuery query(QString::fromUtf8(request.query));
    SagaListFilter filter;
    for (const auto &[name, value] : query.queryItems(QUrl::FullyDecoded)) {
        if (name == QLatin1String("status")) {
            static const QStringList statuses{SagaStatus::Running,   SagaStatus::Compensating,
                                              SagaStatus::Succeeded, SagaStatus::Compensated,
                                              SagaStatus::Parked,    SagaStatus::Resolved};
            if (!statuses.contains(value))
                return invalid(name, QStringLiteral("status must be one of %1")
                                         .arg(statuses.join(QStringLiteral(", "))));
            filter.status = value;
        } else if (name == QLatin1String("limit")) {
            bool ok = false;
            filter.limit = value.toInt(&ok);
            if (!ok || filter.limit < 1 || filter.limit > 100)
                return invalid(name, QStringLiteral("limit must be a whole number from 1 to 100"));
        } else if (name == QLatin1String("starting_after")) {
            filter.startingAfter = value;
        } else {
            return invalid(name, QStringLiteral("%1 is not a parameter of GET /v1/sagas; use "
                                                "status, limit or starting_after")
                                     .arg(name));
        }
    }
    return respond(service(connection).list(merchant, filter));
}

} // namespace keel
