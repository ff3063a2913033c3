#include "core/payment/PaymentRepository.h"

#include "core/db/LibpqConnection.h"
#include "core/idempotency/IdempotencyStore.h"
#include "core/json/JsonWriter.h"
#include "core/payment/Channel.h"
#include "core/payment/ChargeRequest.h"

#include <QRandomGenerator>

namespace keel {
namespace {

constexpr char ChargeColumns[] =
    "SELECT c.id, c.public_id, c.merchant_id, c.out_trade_no, c.amount, c.currency, c.source, "
    "  c.description, c.metadata::text, c.capture, c.amount_captured, c.amount_refunded, "
    "  c.request_hash, extract(epoch FROM c.created_at)::bigint, s.state, s.version, "
    "  CASE WHEN s.state = 'Failed' THEN (SELECT e.payload::text FROM keel.payment_events e "
    "    WHERE e.charge_id = c.id AND e.to_state = 'Failed' ORDER BY e.id DESC LIMIT 1) END "
    "FROM keel.charges c JOIN keel.payment_state s ON s.charge_id = c.id ";

ChargeRecord readCharge(const PgRows &rows, int row)
{
    ChargeRecord charge;
    charge.id = rows.toInt64(row, 0);
    charge.publicId = rows.text(row, 1);
    charge.merchantId = rows.toInt64(row, 2);
    charge.outTradeNo = rows.text(row, 3);
    charge.amount = rows.toInt64(row, 4);
    charge.currency = rows.text(row, 5);
    charge.source = rows.text(row, 6);
    if (!rows.isNull(row, 7))
        charge.description = rows.text(row, 7);
    charge.metadataJson = rows.value(row, 8);
    charge.capture = rows.value(row, 9) == "t";
    charge.amountCaptured = rows.toInt64(row, 10);
    charge.amountRefunded = rows.toInt64(row, 11);
    charge.terms = rows.bytea(row, 12);
    charge.createdEpoch = rows.toInt64(row, 13);
    charge.state = stateFromName(rows.text(row, 14)).value_or(PaymentState::Created);
    charge.version = int(rows.toInt64(row, 15));
    charge.failureJson = rows.value(row, 16);
    return charge;
}

} // namespace

QString PaymentRepository::newPublicId(const QString &prefix)
{
    static constexpr char alphabet[] =
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    QString id = prefix;
    for (int i = 0; i < 24; ++i)
        id += QLatin1Char(alphabet[QRandomGenerator::system()->bounded(62)]);
    return id;
}

Result<PaymentRepository::Intake> PaymentRepository::reserveAndInsertCharge(
    IdempotencyStore &store, const QByteArray &keyHash, int expectedDurationMs, qint64 merchantId,
    const ChargeRequest &request, const QString &outTradeNo, const QString &channel)
{
    ChargeRecord charge;
    charge.publicId = newPublicId(QStringLiteral("ch_"));
    charge.merchantId = merchantId;
    charge.outTradeNo = outTradeNo;
    charge.amount = request.amount;
    charge.currency = request.currency.code;
    charge.source = request.source;
    charge.description = request.description;
    charge.metadataJson = JsonWriter::textObject(request.metadata);
    charge.capture = request.capture;
    charge.terms = request.terms;
    Result<PgRows> rows = store.reserveWith(
        keyHash, merchantId, QStringLiteral("POST /v1/charges"), request.fingerprint,
        expectedDurationMs, charge.publicId,
        "c AS (INSERT INTO keel.charges (public_id, merchant_id, out_trade_no, amount, currency, "
        "    source, description, metadata, capture, request_hash, channel) "
        "  SELECT $8, $2, $9, $10, $11, $12, $13, $14::jsonb, $15, $16, $17 FROM reserved "
        "  ON CONFLICT (merchant_id, out_trade_no) DO NOTHING "
        "  RETURNING id, extract(epoch FROM created_at)::bigint AS created), "
        "s AS (INSERT INTO keel.payment_state (charge_id, state, version) "
        "  SELECT id, 'Authorizing', 1 FROM c RETURNING charge_id), "
        "e AS (INSERT INTO keel.payment_events (charge_id, from_state, to_state, event_type) "
        "  SELECT charge_id, 'Created', 'Authorizing', 'submit' FROM s)",
        "SELECT (SELECT count(*) FROM reserved), (SELECT id FROM c), (SELECT created FROM c)",
        {outTradeNo.toUtf8(), QByteArray::number(request.amount), request.currency.code.toUtf8(),
         request.source.toUtf8(),
         request.description ? request.description->toUtf8() : QByteArray(), charge.metadataJson,
         request.capture ? "true" : "false", LibpqConnection::byteaParam(request.terms),
         channel.toUtf8()});
    if (!rows)
        return rows.error();
    Intake intake;
    intake.reserved = rows->toInt64(0, 0) == 1;
    if (!rows->isNull(0, 1)) {
        charge.id = rows->toInt64(0, 1);
        charge.createdEpoch = rows->toInt64(0, 2);
        charge.state = PaymentState::Authorizing;
        charge.version = 1;
        intake.charge = charge;
    }
    return intake;
}

Result<std::optional<ChargeRecord>> PaymentRepository::findWhere(const QByteArray &condition,
                                                                 const QByteArrayList &params)
{
    Result<PgRows> rows = m_session.query(QByteArray(ChargeColumns) + condition, params);
    if (!rows)
        return rows.error();
    if (rows->size() == 0)
        return std::optional<ChargeRecord>();
    return std::optional<ChargeRecord>(readCharge(*rows, 0));
}

Result<std::optional<ChargeRecord>> PaymentRepository::findByOrder(qint64 merchantId,
                                                                   const QString &outTradeNo)
{
    return findWhere("WHERE c.merchant_id = $1 AND c.out_trade_no = $2",
                     {QByteArray::number(merchantId), outTradeNo.toUtf8()});
}

Result<std::optional<ChargeRecord>> PaymentRepository::findByPublicId(qint64 merchantId,
                                                                      const QString &publicId)
{
    return findWhere("WHERE c.merchant_id = $1 AND c.public_id = $2",
                     {QByteArray::number(merchantId), publicId.toUtf8()});
}

Result<std::optional<ChargeRecord>> PaymentRepository::findByReference(const QString &publicId)
{
    return findWhere("WHERE c.public_id = $1", {publicId.toUtf8()});
}

Status PaymentRepository::transition(ChargeRecord &charge, const QStringList &events,
                                     const QByteArray &payloadJson, const QString &upstreamEventId)
{
    QStringList froms, tos;
    PaymentState state = charge.state;
    for (const QString &event : events) {
        const std::optional<Transition> step = transitionFor(state, event);
        if (!step)
            return makeError(ErrorKind::Failed,
                             QStringLiteral("transition %1 from %2 is not allowed")
                                 .arg(event, stateName(state)));
        froms << stateName(step->from);
        tos << stateName(step->to);
        state = step->to;
    }
    Result<PgRows> rows = m_session.query(
        "WITH moved AS (UPDATE keel.payment_state SET state = $3, version = version + 1, "
        "    updated_at = now() "
        "  WHERE charge_id = $1 AND state = $2 AND version = $4 RETURNING charge_id), "
        "steps AS (SELECT * FROM unnest($5::text[], $6::text[], $7::text[]) WITH ORDINALITY "
        "  AS s(from_state, to_state, event_type, n)), "
        "ev AS (INSERT INTO keel.payment_events (charge_id, from_state, to_state, event_type, "
        "    upstream_event_id, payload) "
        "  SELECT m.charge_id, s.from_state, s.to_state, s.event_type, "
        "    CASE WHEN s.n = cardinality($5::text[]) THEN $8 END, $9::jsonb "
        "  FROM moved m CROSS JOIN steps s ORDER BY s.n RETURNING 1) "
        "SELECT keel.require_rows((SELECT count(*) FROM moved), 1, "
        "  'payment state changed concurrently'), (SELECT count(*) FROM ev)",
        {QByteArray::number(charge.id), stateName(charge.state).toUtf8(), stateName(state).toUtf8(),
         QByteArray::number(charge.version), LibpqConnection::arrayParam(froms),
         LibpqConnection::arrayParam(tos), LibpqConnection::arrayParam(events),
         upstreamEventId.isEmpty() ? QByteArray() : upstreamEventId.toUtf8(),
         payloadJson.isEmpty() ? QByteArray("{}") : payloadJson});
    if (!rows)
        return rows.error();
    charge.state = state;
    charge.version += 1;
    if (state == PaymentState::Failed)
        charge.failureJson = payloadJson;
    return {};
}

Status PaymentRepository::addCaptured(ChargeRecord &charge, qint64 amount)
{
    Result<PgRows> rows = m_session.query(
        "UPDATE keel.charges SET amount_captured = amount_captured + $2 WHERE id = $1",
        {QByteArray::number(charge.id), QByteArray::number(amount)});
    if (!rows)
        return rows.error();
    charge.amountCaptured += amount;
    return {};
}

Status PaymentRepository::addRefunded(ChargeRecord &charge, qint64 amount)
{
    Result<PgRows> rows = m_session.query(
        "UPDATE keel.charges SET amount_refunded = amount_refunded + $2 WHERE id = $1",
        {QByteArray::number(charge.id), QByteArray::number(amount)});
    if (!rows)
        return rows.error();
    charge.amountRefunded += amount;
    return {};
}

Status PaymentRepository::keepFirstChannelReference(const ChargeRecord &charge,
                                                    const QString &channelReference)
{
    if (!keepableChannelReference(channelReference))
        return {};
    Result<PgRows> rows =
        m_session.query("UPDATE keel.charges SET channel_reference = $2 WHERE id = $1 AND "
                        "channel_reference IS NULL",
                        {QByteArray::number(charge.id), channelReference.toUtf8()});
    return statusOf(rows);
}

Status PaymentRepository::keepChannelReference(const ChargeRecord &charge,
                                               const QString &channelReference)
{
    if (!keepableChannelReference(channelReference))
        return {};
    Result<PgRows> rows =
        m_session.query("UPDATE keel.charges SET channel_reference = $2 WHERE id = $1",
                        {QByteArray::number(charge.id), channelReference.toUtf8()});
    return statusOf(rows);
}

} // namespace keel
