#include "core/saga/HttpParticipant.h"

#include "core/net/ClientPool.h"
#include "core/net/HttpClient.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>
#include <QUrlQuery>

#include <memory>

namespace keel {
namespace {

constexpr int ExcerptLength = 500;

} // namespace

QString verdictName(StepAnswer::Verdict verdict)
{
    switch (verdict) {
    case StepAnswer::Verdict::Succeeded:
        return QStringLiteral("succeeded");
    case StepAnswer::Verdict::Failed:
        return QStringLiteral("failed");
    case StepAnswer::Verdict::Ongoing:
        return QStringLiteral("ongoing");
    case StepAnswer::Verdict::Retryable:
        return QStringLiteral("retryable");
    }
    return {};
}

StepAnswer HttpParticipant::interpret(int status, const QByteArray &body,
                                      const QString &transportError)
{
    StepAnswer answer;
    answer.httpStatus = status;
    answer.excerpt = QString::fromUtf8(body.left(ExcerptLength));
    if (status == 0) {
        answer.verdict = StepAnswer::Verdict::Retryable;
        answer.error = QStringLiteral("no answer: %1").arg(transportError);
        return answer;
    }
    const QString result =
        QJsonDocument::fromJson(body).object().value(QStringLiteral("dtm_result")).toString();
    if (result == QLatin1String("SUCCESS"))
        answer.verdict = StepAnswer::Verdict::Succeeded;
    else if (result == QLatin1String("FAILURE"))
        answer.verdict = StepAnswer::Verdict::Failed;
    else if (result == QLatin1String("ONGOING"))
        answer.verdict = StepAnswer::Verdict::Ongoing;
    else if (status >= 200 && status < 300)
        answer.verdict = StepAnswer::Verdict::Succeeded;
    else if (status == 409)
        answer.verdict = StepAnswer::Verdict::Failed;
    else if (status == 425)
        answer.verdict = StepAnswer::Verdict::Ongoing;
    else
        answer.verdict = StepAnswer::Verdict::Retryable;
    if (!answer.succeeded())
        answer.error = QStringLiteral("the participant answered %1%2")
                           .arg(status)
                           .arg(result.isEmpty() ? QString() : QStringLiteral(" ") + result);
    return answer;
}

QString HttpParticipant::hostOf(const QString &url)
{
    const QUrl parsed(url);
    return QStringLiteral("%1:%2")
        .arg(parsed.host())
        .arg(parsed.port(parsed.scheme() == QLatin1String("https") ? 443 : 80));
}

StepAnswer HttpParticipant::call(const Call &call)
{
    QUrl url(call.url);
    QUrlQuery query(url);
    query.addQueryItem(QStringLiteral("gid"), call.gid);
    query.addQueryItem(QStringLiteral("trans_type"), call.transType);
    query.addQueryItem(QStringLiteral("branch_id"), call.branchId);
    query.addQueryItem(QStringLiteral("op"), call.op);
    url.setQuery(query);
    const QByteArray target =
        url.path(QUrl::FullyEncoded).toUtf8() + '?' + url.query(QUrl::FullyEncoded).toUtf8();
    HttpClient *client = pooledClient(url, call.timeoutMs);
    if (!client) // the gateway admits none such; a row edited by hand, or a worker
                 // that does not allow what the gateway did, might
        return interpret(0, {},
                         QStringLiteral("%1 is not called: %2")
                             .arg(url.toString(QUrl::RemoveQuery), HttpClient::refusal(url)));
    const HttpReply reply = client->request("POST", target.startsWith('?') ? '/' + target : target,
                                            {{"Content-Type", "application/json"}}, call.payload);
    return interpret(reply.status, reply.body, reply.error);
}

} // namespace keel
