#pragma once

#include "core/Result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace keel {

class CurrencyTable;

// How often and how patiently one action (a step's forward action, or its
// compensation within one round) is tried.
struct RetryPolicy {
    int attempts = 5;         // tries before giving up (per round, for compensation)
    int backoffMs = 500;      // the pause after the first failure; doubles each time
    int maxBackoffMs = 30000; // the cap on that pause
    int timeoutMs = 5000;     // one attempt's limit
    bool retryable = true;    // false: the first retryable failure counts as exhausted

    QJsonObject toJson() const;
};

enum class StepKind { Http, Charge, Refund };

QString stepKindName(StepKind kind);

// One step of a saga as its definition gives it. HTTP steps call participants
// with DTM's conventions; charge and refund steps move money through keel's
// own payment services.
struct SagaStepDefinition {
    QString name;
    StepKind kind = StepKind::Http;
    QString actionUrl;         // http: the forward action
    QString compensateUrl;     // http: empty when the step has no compensation
    QByteArray payload = "{}"; // http: the JSON body sent to both
    qint64 amount = 0;         // charge: minor units; refund: 0 = what is left
    QString currency;          // charge: upper-case ISO code
    QString source;            // charge: the card token
    QString chargeStep;        // refund: the name of the earlier charge step it refunds
    RetryPolicy retry;
    RetryPolicy compensation{3, 1000, 60000, 5000, true};
    // What the participant is told (DTM's op, branch_id). A saga's steps are
    // action/compensate on their own branch; a TCC branch is a try step and
    // a confirm step on one branch id, with cancel as the try's compensation.
    QString operation = QStringLiteral("action");
    QString compensateOperation = QStringLiteral("compensate");
    QString branchId; // empty: the step's position ("01", "02", ...)
    // A confirm: the global decision is taken, so a failure is never
    // compensated; it is retried in rounds and parks the transaction after the
    // last, like a compensation.
    bool commitPhase = false;
    // A TCC try is cancelled even when it answered a business failure (the
    // participant's barrier makes a cancel without effect harmless).
    bool compensateFailed = false;

    bool compensable() const;
    // What saga_steps.definition stores; fromStored() reads it back.
    QJsonObject toJson() const;
    static SagaStepDefinition fromStored(const QString &name, StepKind kind,
                                         const QJsonObject &stored);
};

// A saga as a merchant posts it: a named, versioned list of steps, run in
// order and compensated in reverse.
struct SagaDefinition {
    QString transType = QStringLiteral("saga"); // saga or tcc
    QString name;
    int version = 1;
    std::optional<QString> businessKey;
    int stuckAfterSeconds = 300;
    int maxCompensationRounds = 3;
    QList<SagaStepDefinition> steps;

    // Validates an inline definition. Errors name the field
    // ("steps[1].action_url") and say what is allowed; `maxChargeAmount` is
    // the merchant's limit (0: the currency's).
    static Result<SagaDefinition> parse(const QJsonObject &json, const CurrencyTable &currencies,
                                        qint64 maxChargeAmount);
    // A TCC transaction: {"name", "branches": [{"name", "try_url",
    // "confirm_url", "cancel_url", "payload", "retry", "confirm_retry"}]}.
    // Every try runs first, then every confirm; a failed try cancels every
    // branch that was tried.
    static Result<SagaDefinition> parseTcc(const QJsonObject &json);
};

} // namespace keel
