#include "TestParticipant.h"

#include "core/net/HttpRequest.h"
#include "core/net/HttpResponse.h"

#include <QThread>
#include <QUrlQuery>

namespace keel::test {

TestParticipant::TestParticipant()
{
    HttpServerOptions options;
    options.threads = 16;
    m_server = std::make_unique<HttpServer>(options, *this);
    if (!m_server->start())
        m_server.reset();
}

TestParticipant::~TestParticipant()
{
    if (m_server)
        m_server->stop();
}

void TestParticipant::program(const QByteArray &path, Behaviour behaviour)
{
    const QMutexLocker lock(&m_mutex);
    m_behaviours.insert(path, behaviour);
}

QString TestParticipant::url(const QByteArray &path) const
{
    return QStringLiteral("http://127.0.0.1:%1%2")
        .arg(m_server ? m_server->port() : 0)
        .arg(QString::fromUtf8(path));
}

int TestParticipant::calls(const QByteArray &path) const
{
    const QMutexLocker lock(&m_mutex);
    return m_calls.value(path);
}

int TestParticipant::calls(const QByteArray &path, const QString &gid) const
{
    const QMutexLocker lock(&m_mutex);
    return m_callsBySaga.value(path + '|' + gid.toUtf8());
}

int TestParticipant::effects(const QByteArray &path, const QString &gid) const
{
    const QMutexLocker lock(&m_mutex);
    int total = 0;
    const QByteArray prefix = path + '|' + gid.toUtf8() + '|';
    for (auto it = m_effects.cbegin(); it != m_effects.cend(); ++it)
        if (it.key().startsWith(prefix))
            total += it.value();
    return total;
}

int TestParticipant::maxEffectsPerOperation() const
{
    const QMutexLocker lock(&m_mutex);
    int most = 0;
    for (const int effects : m_effects)
        most = std::max(most, effects);
    return most;
}

QByteArray TestParticipant::lastQuery(const QByteArray &path) const
{
    const QMutexLocker lock(&m_mutex);
    return m_lastQuery.value(path);
}

HttpResponse TestParticipant::handle(const HttpRequest &request)
{
    const QUrlQuery query(QString::fromUtf8(request.query));
    const QByteArray gid = query.queryItemValue(QStringLiteral("gid")).toUtf8();
    const QByteArray operation = request.path + '|' + gid + '|' +
                                 query.queryItemValue(QStringLiteral("branch_id")).toUtf8() + '|' +
                                 query.queryItemValue(QStringLiteral("op")).toUtf8();
    Behaviour behaviour;
    int call = 0;
    bool fail = false;
    {
        const QMutexLocker lock(&m_mutex);
        behaviour = m_behaviours.value(request.path);
        call = ++m_calls[request.path];
        ++m_callsBySaga[request.path + '|' + gid];
        m_lastQuery.insert(request.path, request.query);
        m_requests[request.path].append(request);
        fail =
            behaviour.failStatus != 0 && (behaviour.failTimes < 0 || call <= behaviour.failTimes);
        // The barrier: an operation takes effect the first time it succeeds.
        if (!fail && !m_effects.contains(operation))
            m_effects.insert(operation, 1);
    }
    const int inFlight = ++m_inFlight;
    for (int most = m_mostInFlight.load(); inFlight > most;)
        m_mostInFlight.compare_exchange_weak(most, inFlight);
    if (behaviour.delayMs > 0 && (behaviour.delayTimes < 0 || call <= behaviour.delayTimes))
        QThread::msleep(ulong(behaviour.delayMs));
    --m_inFlight;
    HttpResponse answer =
        fail ? jsonResponse(behaviour.failStatus,
                            behaviour.failBody.isEmpty() ? QByteArray("{}") : behaviour.failBody)
             : jsonResponse(200, "{\"dtm_result\":\"SUCCESS\"}");
    answer.repeated = call <= behaviour.repeatTimes;
    return answer;
}

QHash<QByteArray, int> TestParticipant::allEffects() const
{
    const QMutexLocker lock(&m_mutex);
    return m_effects;
}

QList<HttpRequest> TestParticipant::requests(const QByteArray &path) const
{
    const QMutexLocker lock(&m_mutex);
    return m_requests.value(path);
}

HttpResponse TestParticipant::refuse(HttpRefusal)
{
    return jsonResponse(400, "{}");
}

} // namespace keel::test
