#include "core/outbox/NotificationSender.h"

#include "core/db/LibpqConnection.h"
#include "core/metrics/Metrics.h"
#include "core/net/ClientPool.h"
#include "core/net/HttpClient.h"
#include "core/signing/StripeSignature.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QUrl>

namespace keel {
namespace {

constexpr int ExcerptChars = 200;
// A claim outlives the POST's timeout by this much before another sender may
// take the notification over.
constexpr int LeaseSlackMs = 30000;

} // namespace

struct NotificationSender::Claimed {
    qint64 id = 0;
    int attempt = 0;
    QByteArray body;
    QString url;
    QList<QByteArray> secrets;
};

struct NotificationSender::Answer {
    QDateTime startedAt;
    qint64 latencyMs = 0;
    int status = 0; // 0: none
    QString error;
    QString excerpt;
    bool refused = false; // never sent: no later attempt would be either
    bool delivered() const { return status >= 200 && status < 300; }
};

NotificationSender::NotificationSender(LibpqConnection &connection, NotificationOptions options)
    : m_connection(connection), m_options(std::move(options))
{}

Result<NotificationPass> NotificationSender::runOnce()
{
    // Claiming counts the attempt and pushes the notification's next attempt
    // past the POST's timeout, so a sender that dies mid-POST costs one
    // attempt and another sender retries after the lease.
    Result<PgRows> claimed = m_connection.query(
        "WITH due AS (SELECT id FROM keel.notifications WHERE status = 'pending' "
        "    AND next_attempt_at <= now() ORDER BY next_attempt_at LIMIT $1 "
        "    FOR UPDATE SKIP LOCKED) "
        "UPDATE keel.notifications n SET attempts = n.attempts + 1, "
        "  next_attempt_at = now() + $2 * interval '1 millisecond' "
        "FROM due, keel.merchants m, keel.merchant_secrets s "
        "WHERE n.id = due.id AND m.id = n.merchant_id AND s.merchant_id = n.merchant_id "
        "RETURNING n.id, n.attempts, n.body, coalesce(m.notify_url, ''), s.webhook_secret, "
        "  CASE WHEN s.previous_expires_at > now() THEN s.previous_secret END",
        {QByteArray::number(m_options.batch),
         QByteArray::number(m_options.timeoutMs + LeaseSlackMs)});
    if (!claimed)
        return claimed.error();
    NotificationPass pass;
    for (int row = 0; row < claimed->size(); ++row) {
        Claimed notification{claimed->toInt64(row, 0),
                             int(claimed->toInt64(row, 1)),
                             claimed->value(row, 2),
                             claimed->text(row, 3),
                             {claimed->value(row, 4)}};
        if (!claimed->isNull(row, 5))
            notification.secrets << claimed->value(row, 5);
        if (Status recorded = record(notification, post(notification), pass); !recorded)
            return recorded.error();
    }
    return pass;
}

NotificationSender::Answer NotificationSender::post(const Claimed &notification) const
{
    Answer answer;
    answer.startedAt = QDateTime::currentDateTimeUtc();
    const QUrl url(notification.url);
    if (const QString refused = HttpClient::refusal(url); !refused.isEmpty()) {
        answer.error = QStringLiteral("the merchant's notify_url is refused: ") + refused;
        answer.refused = true;
        return answer;
    }
    QElapsedTimer timer;
    timer.start();
    // Kept alive per merchant host: a merchant receives every event of its
    // payments, and a TLS handshake per event would cost more than the POST.
    HttpClient *const client = pooledClient(url, m_options.timeoutMs);
    if (!client) { // refused meanwhile: the policy changed under a running worker
        answer.error =
            QStringLiteral("the merchant's notify_url is refused: ") + HttpClient::refusal(url);
        answer.refused = true;
        return answer;
    }
    const QByteArray target =
        url.path(QUrl::FullyEncoded).toUtf8() +
        (url.hasQuery() ? '?' + url.query(QUrl::FullyEncoded).toUtf8() : QByteArray());
    const HttpReply reply = client->request(
        "POST", target.isEmpty() ? QByteArray("/") : target,
        {{"Content-Type", "application/json; charset=utf-8"},
         {"User-Agent", "keel-notifications/1"},
         {"Stripe-Signature",
          StripeSignature::header(notification.secrets, QDateTime::currentSecsSinceEpoch(),
                                  notification.body)}},
        notification.body);
    answer.latencyMs = timer.elapsed();
    answer.status = reply.status;
    answer.excerpt = QString::fromUtf8(reply.body.left(ExcerptChars * 4)).left(ExcerptChars);
    if (reply.status == 0)
        answer.error = reply.error;
    else if (!answer.delivered())
        answer.error = QStringLiteral("the merchant answered %1").arg(reply.status);
    return answer;
}

Status NotificationSender::record(const Claimed &notification, const Answer &answer,
                                  NotificationPass &pass)
{
    const bool delivered = answer.delivered();
    // A URL this deployment will not call parks at once, with the reason,
    // for a person to resend once the merchant's URL is fixed.
    const bool park = !delivered && (answer.refused ||
                                     notification.attempt > m_options.retryDelaysSeconds.size());
    // ±10% so that notifications failed together do not retry together.
    const qint64 pauseMs =
        delivered || park ? 0
                          : qint64(m_options.retryDelaysSeconds.value(notification.attempt - 1)) *
                                QRandomGenerator::global()->bounded(900, 1101);
    // Fenced by the attempt number: a sender whose lease ran out and whose
    // notification was claimed again records its attempt but decides nothing.
    Result<PgRows> recorded = m_connection.query(
        "WITH attempt AS (INSERT INTO keel.notification_attempts (notification_id, attempt, "
        "    started_at, latency_ms, http_status, error, response_excerpt) "
        "  VALUES ($1, $2, $3::timestamptz, $4, $5, nullif($6, ''), nullif($7, ''))) "
        "UPDATE keel.notifications SET "
        "  status = CASE WHEN $8 THEN 'delivered' WHEN $9 THEN 'parked' ELSE 'pending' END, "
        "  delivered_at = CASE WHEN $8 THEN now() END, parked_at = CASE WHEN $9 THEN now() END, "
        "  next_attempt_at = now() + $10 * interval '1 millisecond', last_error = nullif($6, '') "
        "WHERE id = $1 AND attempts = $2",
        {QByteArray::number(notification.id), QByteArray::number(notification.attempt),
         answer.startedAt.toString(Qt::ISODateWithMs).toUtf8(),
         QByteArray::number(answer.latencyMs),
         answer.status ? QByteArray::number(answer.status) : QByteArray(), answer.error.toUtf8(),
         answer.excerpt.toUtf8(), delivered ? "true" : "false", park ? "true" : "false",
         QByteArray::number(pauseMs)});
    if (!recorded)
        return recorded.error();
    const QString result = delivered ? QStringLiteral("delivered")
                           : park    ? QStringLiteral("parked")
                                     : QStringLiteral("failed");
    ++(delivered ? pass.delivered : park ? pass.parked : pass.failed);
    Metrics::instance().countNotification(result);
    return {};
}

} // namespace keel
