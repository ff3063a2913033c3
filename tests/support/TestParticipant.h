#pragma once

#include "core/net/HttpRequest.h"
#include "core/net/HttpServer.h"

#include <QByteArray>
#include <QHash>
#include <QMutex>
#include <QString>

#include <atomic>
#include <memory>

namespace keel::test {

// A real HTTP saga participant on a private port, speaking DTM's protocol as
// keel calls it. Each path behaves as a test programs it (fail with a status
// the first N times, answer slowly); every call is recorded by
// (path, gid, branch_id, op), and effects are applied at most once per
// (gid, branch_id, op) the way DTM's barrier does, so a repeated delivery is
// visible as a second call without a second effect.
class TestParticipant final : public HttpHandler {
public:
    struct Behaviour {
        int failStatus = 0;  // answer this status ...
        int failTimes = 0;   // ... to the first N calls (-1: always)
        QByteArray failBody; // with this body (e.g. {"dtm_result":"FAILURE"})
        int delayMs = 0;     // sleep this long before answering (after applying the effect)
        int delayTimes = -1; // ... for the first N calls (-1: always)
        int repeatTimes = 0; // send the answer twice to the first N calls
    };

    TestParticipant();
    ~TestParticipant() override;

    void program(const QByteArray &path, Behaviour behaviour);
    QString url(const QByteArray &path) const;

    int calls(const QByteArray &path) const;                     // every call to the path
    int calls(const QByteArray &path, const QString &gid) const; // of one saga
    int effects(const QByteArray &path, const QString &gid) const;
    // The most effects any (gid, branch, op) had: 1 when every operation took
    // effect once, however often it was delivered.
    int maxEffectsPerOperation() const;
    QByteArray lastQuery(const QByteArray &path) const;
    // Every request to the path, in arrival order (a merchant's notify URL).
    QList<HttpRequest> requests(const QByteArray &path) const;
    // Every operation's effects, keyed path|gid|branch|op (0 or 1 each).
    QHash<QByteArray, int> allEffects() const;
    // Connections its clients opened: fewer than requests when kept alive.
    int connections() const { return m_server->connectionsAccepted(); }
    // The most calls this participant had in flight at once.
    int mostInFlight() const { return m_mostInFlight.load(); }

    HttpResponse handle(const HttpRequest &request) override;
    HttpResponse refuse(HttpRefusal refusal) override;

private:
    mutable QMutex m_mutex;
    QHash<QByteArray, Behaviour> m_behaviours;
    QHash<QByteArray, int> m_calls;       // path -> calls
    QHash<QByteArray, int> m_callsBySaga; // path|gid -> calls
    QHash<QByteArray, int> m_effects;     // path|gid|branch|op -> effects (0 or 1)
    QHash<QByteArray, QByteArray> m_lastQuery;
    QHash<QByteArray, QList<HttpRequest>> m_requests;
    std::atomic<int> m_inFlight{0};
    std::atomic<int> m_mostInFlight{0};
    std::unique_ptr<HttpServer> m_server;
};

} // namespace keel::test
