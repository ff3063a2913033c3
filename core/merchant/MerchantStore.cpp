#include "core/merchant/MerchantStore.h"

#include "core/db/LibpqConnection.h"
#include "core/db/PgTransaction.h"
#include "core/net/HttpClient.h"

#include <QCryptographicHash>
#include <QDeadlineTimer>
#include <QHash>
#include <QMutex>
#include <QRandomGenerator>
#include <QUrl>

namespace keel {
namespace {

constexpr int CacheMs = 5000;

struct CachedMerchant {
    std::optional<Merchant> merchant;
    QDeadlineTimer expires;
};

QMutex s_cacheLock;
QHash<QByteArray, CachedMerchant> s_cache; // identity|key hash -> merchant

QString randomToken(const QString &prefix, int length)
{
    static constexpr char alphabet[] =
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    QString token = prefix;
    for (int i = 0; i < length; ++i)
        token += QLatin1Char(alphabet[QRandomGenerator::system()->bounded(62)]);
    return token;
}

QByteArray keyHash(const QString &apiKey)
{
    return QCryptographicHash::hash(apiKey.toUtf8(), QCryptographicHash::Sha256);
}

} // namespace

Result<IssuedMerchant> MerchantStore::create(const QString &name, const QString &notifyUrl)
{
    if (name.trimmed().isEmpty() || name.size() > 200)
        return fieldError(QStringLiteral("name"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("--name must be 1-200 characters"));
    // What the worker could never deliver to is refused now, not parked
    // after days of failed attempts.
    if (!notifyUrl.isEmpty())
        if (const QString refused = HttpClient::refusal(QUrl(notifyUrl, QUrl::StrictMode));
            !refused.isEmpty())
            return fieldError(QStringLiteral("notify-url"), QStringLiteral("parameter_invalid"),
                              QStringLiteral("--notify-url is refused: %1").arg(refused));
    IssuedMerchant issued;
    issued.apiKey = randomToken(QStringLiteral("sk_test_"), 32);
    issued.webhookSecret = randomToken(QStringLiteral("whsec_"), 32);
    issued.merchant.name = name.trimmed();

    PgTransaction tx(m_session);
    if (!tx.begun())
        return tx.begun().error();
    Result<PgRows> rows = m_session.query(
        "INSERT INTO keel.merchants (name, api_key_hash, notify_url) VALUES ($1, $2, $3) RETURNING "
        "id",
        {issued.merchant.name.toUtf8(), LibpqConnection::byteaParam(keyHash(issued.apiKey)),
         notifyUrl.isEmpty() ? QByteArray() : notifyUrl.toUtf8()});
    if (!rows)
        return rows.error();
    issued.merchant.id = rows->toInt64(0, 0);
    Result<PgRows> secret = m_session.query(
        "INSERT INTO keel.merchant_secrets (merchant_id, webhook_secret) VALUES ($1, $2)",
        {QByteArray::number(issued.merchant.id), issued.webhookSecret.toUtf8()});
    if (!secret)
        return secret.error();
    if (Status committed = tx.commit(); !committed)
        return committed.error();
    return issued;
}

Result<QString> MerchantStore::rotateSecret(qint64 merchantId, int keepPreviousHours)
{
    if (keepPreviousHours < 0 || keepPreviousHours > 24 * 30)
        return fieldError(QStringLiteral("keep-previous-hours"),
                          QStringLiteral("parameter_invalid"),
                          QStringLiteral("--keep-previous-hours must be between 0 and 720"));
    const QString secret = randomToken(QStringLiteral("whsec_"), 32);
    Result<PgRows> rows = m_session.query(
        "UPDATE keel.merchant_secrets SET webhook_secret = $2, rotated_at = now(), "
        "  previous_secret = CASE WHEN $3 > 0 THEN webhook_secret END, "
        "  previous_expires_at = CASE WHEN $3 > 0 THEN now() + $3 * interval '1 hour' END "
        "WHERE merchant_id = $1",
        {QByteArray::number(merchantId), secret.toUtf8(), QByteArray::number(keepPreviousHours)});
    if (!rows)
        return rows.error();
    if (rows->affected() != 1)
        return fieldError(QStringLiteral("merchant"), QStringLiteral("merchant_not_found"),
                          QStringLiteral("there is no merchant %1").arg(merchantId));
    return secret;
}

Result<std::optional<Merchant>> MerchantStore::authenticate(const QString &apiKey)
{
    const QByteArray hash = keyHash(apiKey);
    const QByteArray cacheKey = m_session.identity().toUtf8() + '|' + hash;
    {
        QMutexLocker locker(&s_cacheLock);
        if (auto it = s_cache.constFind(cacheKey);
            it != s_cache.constEnd() && !it->expires.hasExpired())
            return it->merchant;
    }
    Result<PgRows> rows =
        m_session.query("SELECT id, name, coalesce(max_charge_amount, 0) FROM keel.merchants "
                        "WHERE api_key_hash = $1 AND status = 'active'",
                        {LibpqConnection::byteaParam(hash)});
    if (!rows)
        return rows.error();
    std::optional<Merchant> merchant;
    if (rows->size() == 1)
        merchant = Merchant{rows->toInt64(0, 0), rows->text(0, 1), rows->toInt64(0, 2)};
    QMutexLocker locker(&s_cacheLock);
    s_cache.insert(cacheKey, {merchant, QDeadlineTimer(CacheMs)});
    return merchant;
}

} // namespace keel
