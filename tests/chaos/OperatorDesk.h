#pragma once

#include "core/db/ConnectionSettings.h"
#include "core/ops/ActionDesk.h"

#include <QMap>
#include <QMutex>
#include <QString>

#include <atomic>
#include <optional>
#include <random>
#include <thread>

class QJsonObject;
class QSqlDatabase;

namespace keel::chaos {

// Two people at the console while the faults run: a maker (keel_operator and
// keel_sre) and a checker (keel_approver), each a login of their roles. Every
// few hundred milliseconds the maker proposes a guarded action on a target it
// picks at random among what the console would offer it (retry, park,
// resume, force to compensate or skip a step of a saga; write off, adjust or
// take a case; resend a parked message; two proposals racing on one saga), and the checker
// approves, rejects or lets it expire; approved ones the maker executes, and keel's worker
// processes carry out the saga kinds. What happened is judged at the end from the database.
class OperatorDesk final {
public:
    OperatorDesk(ConnectionSettings superuser, quint64 seed);
    ~OperatorDesk();
    Q_DISABLE_COPY_MOVE(OperatorDesk)

    // Creates the two logins and a short proposal lifetime; false if it could not.
    bool prepare(QString *error);
    void start();
    void stop();
    // What the desk tried, by "kind decision" (e.g. "saga.park approved").
    QMap<QString, qint64> tried() const;

private:
    void run();
    bool actOnce(std::mt19937_64 &random);
    std::optional<ActionRecord> propose(QSqlDatabase maker, const QString &kind,
                                        const QString &type, const QStringList &target,
                                        const QString &reason, const QJsonObject &payload = {});
    bool onSaga(std::mt19937_64 &random, const QString &kind, const QString &status,
                const char *condition = "");
    bool onCase(std::mt19937_64 &random, const QString &kind);
    bool adjustCase(std::mt19937_64 &random);
    bool raceOnSaga();
    bool resendParked(std::mt19937_64 &random);
    void decide(std::mt19937_64 &random, const QString &kind, qint64 id,
                const QString &contentHash);
    void execute(const QString &kind, qint64 id);
    void count(const QString &what);

    ConnectionSettings m_superuser;
    ConnectionSettings m_maker;
    ConnectionSettings m_checker;
    quint64 m_seed;
    std::atomic<bool> m_stopping{false};
    std::thread m_thread;
    mutable QMutex m_lock;
    QMap<QString, qint64> m_tried;
};

} // namespace keel::chaos
