#include "core/idempotency/IdempotencyStore.h"

#include "core/db/LibpqConnection.h"
#include "core/json/JsonWriter.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

namespace keel {

IdempotencyStore::IdempotencyStore(LibpqConnection &session, IdempotencyPolicy policy,
                                   QString owner)
    : m_session(session), m_policy(policy), m_owner(std::move(owner))
{}

namespace {

constexpr char ReserveCte[] =
    "reserved AS (INSERT INTO keel.idempotency_keys AS k (key_hash, merchant_id, endpoint, "
    "  request_hash, expected_duration_ms, locked_at, locked_by, expires_at, resource_id) "
    "VALUES ($1, $2, $3, $4, $5, now(), $6, now() + make_interval(secs => $7), $8) "
    "ON CONFLICT (key_hash) DO UPDATE SET merchant_id = EXCLUDED.merchant_id, "
    "  endpoint = EXCLUDED.endpoint, request_hash = EXCLUDED.request_hash, "
    "  status = 'processing', response_status = NULL, response_headers = NULL, "
    "  response_body = NULL, expected_duration_ms = EXCLUDED.expected_duration_ms, "
    "  locked_at = now(), locked_by = EXCLUDED.locked_by, recovered_count = 0, "
    "  created_at = now(), completed_at = NULL, expires_at = EXCLUDED.expires_at, "
    "  resource_id = EXCLUDED.resource_id "
    // An expired key is a new request; a live one stays untouched.
    "WHERE k.expires_at < now() "
    "RETURNING 1 AS ok)";

} // namespace

Result<PgRows> IdempotencyStore::reserveWith(const QByteArray &keyHash, qint64 merchantId,
                                             const QString &endpoint, const QByteArray &requestHash,
                                             int expectedDurationMs, const QString &resourceId,
                                             const QByteArray &dependentCtes,
                                             const QByteArray &finalSelect,
                                             const QByteArrayList &moreParams)
{
    QByteArray sql = QByteArray("WITH ") + ReserveCte;
    if (!dependentCtes.isEmpty())
        sql += ", " + dependentCtes;
    sql += ' ' + finalSelect;
    QByteArrayList params{LibpqConnection::byteaParam(keyHash),
                          QByteArray::number(merchantId),
                          endpoint.toUtf8(),
                          LibpqConnection::byteaParam(requestHash),
                          QByteArray::number(expectedDurationMs),
                          m_owner.toUtf8(),
                          QByteArray::number(m_policy.ttlSeconds),
                          resourceId.isEmpty() ? QByteArray() : resourceId.toUtf8()};
    params += moreParams;
    return m_session.query(sql, params);
}

Result<bool> IdempotencyStore::reserve(const QByteArray &keyHash, qint64 merchantId,
                                       const QString &endpoint, const QByteArray &requestHash,
                                       int expectedDurationMs, const QString &resourceId)
{
    Result<PgRows> rows =
        reserveWith(keyHash, merchantId, endpoint, requestHash, expectedDurationMs, resourceId, {},
                    "SELECT ok FROM reserved", {});
    if (!rows)
        return rows.error();
    return rows->size() == 1;
}

Result<std::optional<IdempotencyRecord>> IdempotencyStore::find(const QByteArray &keyHash)
{
    Result<PgRows> rows = m_session.query(
        "SELECT request_hash, status, response_status, response_headers::text, response_body, "
        "  expected_duration_ms, "
        "  (extract(epoch FROM now() - coalesce(locked_at, created_at)) * 1000)::bigint "
        "FROM keel.idempotency_keys WHERE key_hash = $1 AND expires_at >= now()",
        {LibpqConnection::byteaParam(keyHash)});
    if (!rows)
        return rows.error();
    if (rows->size() == 0)
        return std::optional<IdempotencyRecord>();
    IdempotencyRecord record;
    record.requestHash = rows->bytea(0, 0);
    record.processing = rows->value(0, 1) == "processing";
    record.expectedDurationMs = int(rows->toInt64(0, 5));
    record.lockAgeMs = rows->toInt64(0, 6);
    if (!record.processing) {
        StoredResponse response;
        response.status = int(rows->toInt64(0, 2));
        const QJsonArray headers = QJsonDocument::fromJson(rows->value(0, 3)).array();
        for (const QJsonValue &pair : headers)
            response.headers.append({pair[0].toString().toUtf8(), pair[1].toString().toUtf8()});
        response.body = rows->bytea(0, 4);
        record.response = response;
    }
    return std::optional<IdempotencyRecord>(record);
}

Result<bool> IdempotencyStore::takeOver(const QByteArray &keyHash)
{
    Result<PgRows> rows = m_session.query(
        "UPDATE keel.idempotency_keys SET locked_at = now(), locked_by = $2, "
        "  recovered_count = recovered_count + 1 "
        "WHERE key_hash = $1 AND status = 'processing' "
        "  AND locked_at < now() - make_interval(secs => $3::double precision / 1000) "
        "RETURNING 1",
        {LibpqConnection::byteaParam(keyHash), m_owner.toUtf8(),
         QByteArray::number(m_policy.lockTimeoutMs)});
    if (!rows)
        return rows.error();
    return rows->size() == 1;
}

Status IdempotencyStore::complete(const QByteArray &keyHash, const StoredResponse &response,
                                  const QString &resourceId)
{
    JsonWriter headers;
    headers.beginArray();
    for (const auto &[name, value] : response.headers)
        headers.beginArray()
            .value(QString::fromUtf8(name))
            .value(QString::fromUtf8(value))
            .endArray();
    headers.endArray();
    // A status >= 500 is stored as failed: the client learns what happened on
    // replay, and the console can tell the two apart.
    Result<PgRows> rows = m_session.query(
        "WITH done AS (UPDATE keel.idempotency_keys SET status = $2, response_status = $3, "
        "  response_headers = $4::jsonb, response_body = $5, completed_at = now(), "
        "  resource_id = coalesce($7, resource_id), "
        "  locked_at = NULL, locked_by = NULL "
        "  WHERE key_hash = $1 AND status = 'processing' AND locked_by = $6 RETURNING 1) "
        "SELECT keel.require_rows(count(*), 1, 'idempotency key no longer held by this request') "
        "FROM done",
        {LibpqConnection::byteaParam(keyHash),
         response.status >= 500 ? QByteArray("failed") : QByteArray("done"),
         QByteArray::number(response.status), headers.data(),
         LibpqConnection::byteaParam(response.body), m_owner.toUtf8(),
         resourceId.isEmpty() ? QByteArray() : resourceId.toUtf8()});
    if (!rows)
        return rows.error();
    return {};
}

Result<QList<QByteArray>> IdempotencyStore::silentHolders(const QString &resourceId)
{
    Result<PgRows> rows = m_session.query(
        "SELECT key_hash FROM keel.idempotency_keys "
        "WHERE resource_id = $1 AND status = 'processing' "
        "  AND locked_at < now() - make_interval(secs => $2::double precision / 1000) "
        "ORDER BY key_hash",
        {resourceId.toUtf8(), QByteArray::number(m_policy.lockTimeoutMs)});
    if (!rows)
        return rows.error();
    QList<QByteArray> keys;
    for (int i = 0; i < rows->size(); ++i)
        keys << rows->bytea(i, 0);
    return keys;
}

Result<int> IdempotencyStore::sweepExpired(int batch)
{
    Result<PgRows> rows =
        m_session.query("DELETE FROM keel.idempotency_keys WHERE key_hash IN ("
                        "  SELECT key_hash FROM keel.idempotency_keys WHERE expires_at < now() "
                        "  ORDER BY expires_at, key_hash LIMIT $1 FOR UPDATE SKIP LOCKED)",
                        {QByteArray::number(batch)});
    if (!rows)
        return rows.error();
    return rows->affected();
}

int IdempotencyStore::retryAfterSeconds(const IdempotencyRecord &record)
{
    const qint64 remainingMs = std::max<qint64>(0, record.expectedDurationMs - record.lockAgeMs);
    return int(std::max<qint64>(1, (remainingMs + 999) / 1000));
}

} // namespace keel
