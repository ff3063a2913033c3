#pragma once

#include "core/saga/SagaDefinition.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace keel {

// The status names are the database's (sagas.status, saga_steps.status).
namespace SagaStatus {
inline const QString Running = QStringLiteral("running");
inline const QString Compensating = QStringLiteral("compensating");
inline const QString Succeeded = QStringLiteral("succeeded");
inline const QString Compensated = QStringLiteral("compensated");
inline const QString Parked = QStringLiteral("parked");
// Closed by a person: its case was adjusted or written off, never to resume.
inline const QString Resolved = QStringLiteral("resolved");
} // namespace SagaStatus

namespace StepStatus {
inline const QString Pending = QStringLiteral("pending");
inline const QString Running = QStringLiteral("running");
inline const QString Succeeded = QStringLiteral("succeeded");
inline const QString Failed = QStringLiteral("failed");
inline const QString Compensating = QStringLiteral("compensating");
inline const QString Compensated = QStringLiteral("compensated");
inline const QString CompensationFailed = QStringLiteral("compensation_failed");
inline const QString Skipped = QStringLiteral("skipped");
} // namespace StepStatus

// One step of a saga instance as stored.
struct StepRecord {
    int index = 0;
    SagaStepDefinition definition;
    QString status = StepStatus::Pending;
    int attempts = 0;
    int compensationAttempts = 0;
    QString lastError;
    QString lastResponse;
    QByteArray resultJson = "{}"; // what the forward action produced (e.g. the charge id)
    qint64 startedAtMs = 0;       // epoch ms; 0 = never
    qint64 finishedAtMs = 0;
    qint64 compensatedAtMs = 0;
    // The forward action failed without knowing whether the participant acted
    // (retries exhausted): it is compensated too.
    bool ambiguous = false;

    // Whether compensation has to undo this step.
    bool needsCompensation() const;
};

// One entry of a saga's event log (saga_events).
struct SagaEvent {
    int step = -1; // -1: the saga itself
    QString event; // started, attempt_started, attempt_ended, compensating, parked, ...
    QByteArray detailJson = "{}";
    qint64 atMs = 0;
};

// A saga instance with its steps.
struct SagaRecord {
    qint64 id = 0;
    QString publicId;                           // saga_...: the gid participants see
    QString transType = QStringLiteral("saga"); // saga or tcc
    qint64 merchantId = 0;
    QString name;
    int definitionVersion = 1;
    QString businessKey;
    QString status = SagaStatus::Running;
    int currentStep = 0;
    int version = 0;
    int compensationRounds = 0;
    int maxCompensationRounds = 3;
    int stuckAfterSeconds = 300;
    QString lastError;
    qint64 chargeId = 0;
    QString chargePublicId;
    QString leaseOwner;
    qint64 leaseExpiresAtMs = 0;
    bool leased = false; // a worker holds an unexpired lease now
    qint64 createdAtMs = 0;
    qint64 updatedAtMs = 0;
    qint64 finishedAtMs = 0;
    qint64 nextAttemptAtMs = 0;
    QList<StepRecord> steps;
    QList<SagaEvent> events; // filled only where asked for (one saga's full view)

    bool terminal() const
    {
        return status == SagaStatus::Succeeded || status == SagaStatus::Compensated ||
               status == SagaStatus::Parked || status == SagaStatus::Resolved;
    }
};

} // namespace keel
