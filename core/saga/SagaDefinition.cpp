#include "core/saga/SagaDefinition.h"

#include "core/net/HttpClient.h"

#include "core/money/Currency.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>
#include <QUrl>

namespace keel {
namespace {

constexpr int MaxSteps = 32;

Error invalid(const QString &field, const QString &message)
{
    return fieldError(field, QStringLiteral("parameter_invalid"), message);
}

Error missing(const QString &field, const QString &message)
{
    return fieldError(field, QStringLiteral("parameter_missing"), message);
}

Status knownKeys(const QJsonObject &json, const QStringList &allowed, const QString &prefix)
{
    for (auto it = json.begin(); it != json.end(); ++it) {
        if (!allowed.contains(it.key()))
            return fieldError(prefix + it.key(), QStringLiteral("parameter_unknown"),
                              QStringLiteral("%1%2 is not a saga field; allowed: %3")
                                  .arg(prefix, it.key(), allowed.join(QStringLiteral(", "))));
    }
    return {};
}

// An integer field within [low, high]; `fallback` when absent.
Result<int> boundedInt(const QJsonObject &json, const QString &key, const QString &field, int low,
                       int high, int fallback)
{
    if (!json.contains(key))
        return fallback;
    const QJsonValue value = json.value(key);
    const double number = value.toDouble(-1);
    if (!value.isDouble() || number != double(qint64(number)) || number < low || number > high)
        return invalid(field, QStringLiteral("%1 must be a whole number from %2 to %3")
                                  .arg(field)
                                  .arg(low)
                                  .arg(high));
    return int(number);
}

Result<QString> nameField(const QJsonObject &json, const QString &field, bool required)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9_.-]{1,64}$"));
    const QJsonValue value = json.value(QStringLiteral("name"));
    if (value.isUndefined() && required)
        return missing(field, QStringLiteral("%1 is required").arg(field));
    if (!value.isString() || !pattern.match(value.toString()).hasMatch())
        return invalid(field, QStringLiteral("%1 must be 1-64 of A-Z a-z 0-9 _ . -").arg(field));
    return value.toString();
}

Result<QString> participantUrl(const QJsonObject &json, const QString &key, const QString &field,
                               bool required)
{
    const QJsonValue value = json.value(key);
    if (value.isUndefined() || value.isNull()) {
        if (required)
            return missing(field, QStringLiteral("%1 is required for an http step").arg(field));
        return QString();
    }
    const QUrl url(value.toString(), QUrl::StrictMode);
    if (!value.isString() || !url.isValid() ||
        (url.scheme() != QLatin1String("https") && url.scheme() != QLatin1String("http")) ||
        url.host().isEmpty() || !url.userInfo().isEmpty() || !url.fragment().isEmpty() ||
        value.toString().size() > 2048)
        return invalid(field, QStringLiteral("%1 must be an https:// URL with a host, "
                                             "such as https://inventory.internal:8443/reserve")
                                  .arg(field));
    // Refused here, where the merchant sees why, rather than by the worker
    // that would have had to call it.
    if (const QString refused = HttpClient::refusal(url); !refused.isEmpty())
        return invalid(field, QStringLiteral("%1 is refused: %2").arg(field, refused));
    return value.toString();
}

Result<RetryPolicy> retryPolicy(const QJsonObject &step, const QString &key, const QString &field,
                                RetryPolicy policy)
{
    if (!step.contains(key))
        return policy;
    if (!step.value(key).isObject())
        return invalid(field, QStringLiteral("%1 must be an object").arg(field));
    const QJsonObject json = step.value(key).toObject();
    const QString prefix = field + QLatin1Char('.');
    if (Status known = knownKeys(json,
                                 {QStringLiteral("attempts"), QStringLiteral("backoff_ms"),
                                  QStringLiteral("max_backoff_ms"), QStringLiteral("timeout_ms"),
                                  QStringLiteral("retryable")},
                                 prefix);
        !known)
        return known.error();
    Result<int> attempts = boundedInt(json, QStringLiteral("attempts"),
                                      prefix + QStringLiteral("attempts"), 1, 100, policy.attempts);
    Result<int> backoff =
        boundedInt(json, QStringLiteral("backoff_ms"), prefix + QStringLiteral("backoff_ms"), 0,
                   3600000, policy.backoffMs);
    Result<int> cap =
        boundedInt(json, QStringLiteral("max_backoff_ms"),
                   prefix + QStringLiteral("max_backoff_ms"), 0, 3600000, policy.maxBackoffMs);
    Result<int> timeout =
        boundedInt(json, QStringLiteral("timeout_ms"), prefix + QStringLiteral("timeout_ms"), 50,
                   60000, policy.timeoutMs);
    for (const Result<int> *each : {&attempts, &backoff, &cap, &timeout})
        if (!*each)
            return each->error();
    const QJsonValue retryable = json.value(QStringLiteral("retryable"));
    if (!retryable.isUndefined() && !retryable.isBool())
        return invalid(prefix + QStringLiteral("retryable"),
                       QStringLiteral("%1retryable must be true or false").arg(prefix));
    policy.attempts = *attempts;
    policy.backoffMs = *backoff;
    policy.maxBackoffMs = std::max(*cap, *backoff);
    policy.timeoutMs = *timeout;
    policy.retryable = retryable.toBool(policy.retryable);
    return policy;
}

Result<StepKind> stepKind(const QJsonObject &json, const QString &field)
{
    const QString kind = json.value(QStringLiteral("kind")).toString(QStringLiteral("http"));
    if (kind == QLatin1String("http"))
        return StepKind::Http;
    if (kind == QLatin1String("charge"))
        return StepKind::Charge;
    if (kind == QLatin1String("refund"))
        return StepKind::Refund;
    return invalid(field, QStringLiteral("%1 must be http, charge or refund").arg(field));
}

Status parseHttpStep(const QJsonObject &json, const QString &prefix, SagaStepDefinition &step)
{
    Result<QString> action = participantUrl(json, QStringLiteral("action_url"),
                                            prefix + QStringLiteral("action_url"), true);
    if (!action)
        return action.error();
    Result<QString> compensate = participantUrl(json, QStringLiteral("compensate_url"),
                                                prefix + QStringLiteral("compensate_url"), false);
    if (!compensate)
        return compensate.error();
    step.actionUrl = *action;
    step.compensateUrl = *compensate;
    const QJsonValue payload = json.value(QStringLiteral("payload"));
    if (!payload.isUndefined() && !payload.isObject())
        return invalid(prefix + QStringLiteral("payload"),
                       QStringLiteral("%1payload must be a JSON object").arg(prefix));
    step.payload = QJsonDocument(payload.toObject()).toJson(QJsonDocument::Compact);
    return {};
}

Status parseChargeStep(const QJsonObject &json, const QString &prefix,
                       const CurrencyTable &currencies, qint64 limit, SagaStepDefinition &step)
{
    const std::optional<Currency> currency =
        currencies.find(json.value(QStringLiteral("currency")).toString());
    if (!currency)
        return json.contains(QStringLiteral("currency"))
                   ? invalid(
                         prefix + QStringLiteral("currency"),
                         QStringLiteral("%1currency must be a supported ISO 4217 code").arg(prefix))
                   : missing(prefix + QStringLiteral("currency"),
                             QStringLiteral("%1currency is required").arg(prefix));
    const QJsonValue amountValue = json.value(QStringLiteral("amount"));
    const QString amountText = amountValue.isDouble()
                                   ? QString::number(qint64(amountValue.toDouble()))
                                   : amountValue.toString();
    if (amountValue.isDouble() && amountValue.toDouble() != double(qint64(amountValue.toDouble())))
        return invalid(prefix + QStringLiteral("amount"),
                       QStringLiteral("%1amount must be whole minor units").arg(prefix));
    Result<qint64> amount =
        parseMinorUnits(amountText, *currency, limit, prefix + QStringLiteral("amount"));
    if (!amount)
        return amount.error();
    const QString source = json.value(QStringLiteral("source")).toString();
    if (source.isEmpty() || source.size() > 255)
        return missing(
            prefix + QStringLiteral("source"),
            QStringLiteral("%1source is required (a card token such as tok_visa)").arg(prefix));
    step.amount = *amount;
    step.currency = currency->code;
    step.source = source;
    return {};
}

Status parseRefundStep(const QJsonObject &json, const QString &prefix,
                       const QList<SagaStepDefinition> &earlier, SagaStepDefinition &step)
{
    step.chargeStep = json.value(QStringLiteral("charge_step")).toString();
    const bool found = std::any_of(earlier.begin(), earlier.end(), [&](const auto &other) {
        return other.kind == StepKind::Charge && other.name == step.chargeStep;
    });
    if (!found)
        return invalid(
            prefix + QStringLiteral("charge_step"),
            QStringLiteral("%1charge_step must name an earlier charge step").arg(prefix));
    const QJsonValue amount = json.value(QStringLiteral("amount"));
    if (!amount.isUndefined() && (!amount.isDouble() || amount.toDouble() < 1 ||
                                  amount.toDouble() != double(qint64(amount.toDouble()))))
        return invalid(prefix + QStringLiteral("amount"),
                       QStringLiteral("%1amount must be positive whole minor units").arg(prefix));
    step.amount = qint64(amount.toDouble(0));
    return {};
}

Result<SagaStepDefinition> parseStep(const QJsonValue &value, int index,
                                     const CurrencyTable &currencies, qint64 limit,
                                     const QList<SagaStepDefinition> &earlier)
{
    const QString prefix = QStringLiteral("steps[%1].").arg(index);
    if (!value.isObject())
        return invalid(prefix.chopped(1), QStringLiteral("each step must be an object"));
    const QJsonObject json = value.toObject();
    if (Status known = knownKeys(
            json,
            {QStringLiteral("name"), QStringLiteral("kind"), QStringLiteral("action_url"),
             QStringLiteral("compensate_url"), QStringLiteral("payload"), QStringLiteral("amount"),
             QStringLiteral("currency"), QStringLiteral("source"), QStringLiteral("charge_step"),
             QStringLiteral("retry"), QStringLiteral("compensation_retry")},
            prefix);
        !known)
        return known.error();
    SagaStepDefinition step;
    Result<QString> stepName = nameField(json, prefix + QStringLiteral("name"), true);
    if (!stepName)
        return stepName.error();
    step.name = *stepName;
    for (const SagaStepDefinition &other : earlier)
        if (other.name == step.name)
            return invalid(
                prefix + QStringLiteral("name"),
                QStringLiteral("step names must be unique; %1 is used twice").arg(step.name));
    Result<StepKind> kind = stepKind(json, prefix + QStringLiteral("kind"));
    if (!kind)
        return kind.error();
    step.kind = *kind;
    Status parsed = step.kind == StepKind::Http ? parseHttpStep(json, prefix, step)
                    : step.kind == StepKind::Charge
                        ? parseChargeStep(json, prefix, currencies, limit, step)
                        : parseRefundStep(json, prefix, earlier, step);
    if (!parsed)
        return parsed.error();
    Result<RetryPolicy> retry =
        retryPolicy(json, QStringLiteral("retry"), prefix + QStringLiteral("retry"), step.retry);
    if (!retry)
        return retry.error();
    step.retry = *retry;
    Result<RetryPolicy> compensation =
        retryPolicy(json, QStringLiteral("compensation_retry"),
                    prefix + QStringLiteral("compensation_retry"), step.compensation);
    if (!compensation)
        return compensation.error();
    step.compensation = *compensation;
    return step;
}

RetryPolicy storedPolicy(const QJsonObject &json, RetryPolicy policy)
{
    policy.attempts = json.value(QStringLiteral("attempts")).toInt(policy.attempts);
    policy.backoffMs = json.value(QStringLiteral("backoff_ms")).toInt(policy.backoffMs);
    policy.maxBackoffMs = json.value(QStringLiteral("max_backoff_ms")).toInt(policy.maxBackoffMs);
    policy.timeoutMs = json.value(QStringLiteral("timeout_ms")).toInt(policy.timeoutMs);
    policy.retryable = json.value(QStringLiteral("retryable")).toBool(policy.retryable);
    return policy;
}

} // namespace

QJsonObject RetryPolicy::toJson() const
{
    return {{QStringLiteral("attempts"), attempts},
            {QStringLiteral("backoff_ms"), backoffMs},
            {QStringLiteral("max_backoff_ms"), maxBackoffMs},
            {QStringLiteral("timeout_ms"), timeoutMs},
            {QStringLiteral("retryable"), retryable}};
}

QString stepKindName(StepKind kind)
{
    switch (kind) {
    case StepKind::Http:
        return QStringLiteral("http");
    case StepKind::Charge:
        return QStringLiteral("charge");
    case StepKind::Refund:
        return QStringLiteral("refund");
    }
    return {};
}

bool SagaStepDefinition::compensable() const
{
    return kind == StepKind::Charge || (kind == StepKind::Http && !compensateUrl.isEmpty());
}

QJsonObject SagaStepDefinition::toJson() const
{
    QJsonObject json{{QStringLiteral("retry"), retry.toJson()},
                     {QStringLiteral("compensation_retry"), compensation.toJson()}};
    if (kind == StepKind::Http) {
        json.insert(QStringLiteral("action_url"), actionUrl);
        if (!compensateUrl.isEmpty())
            json.insert(QStringLiteral("compensate_url"), compensateUrl);
        json.insert(QStringLiteral("payload"), QJsonDocument::fromJson(payload).object());
    } else if (kind == StepKind::Charge) {
        json.insert(QStringLiteral("amount"), amount);
        json.insert(QStringLiteral("currency"), currency);
        json.insert(QStringLiteral("source"), source);
    } else {
        json.insert(QStringLiteral("charge_step"), chargeStep);
        if (amount > 0)
            json.insert(QStringLiteral("amount"), amount);
    }
    if (operation != QLatin1String("action"))
        json.insert(QStringLiteral("op"), operation);
    if (compensateOperation != QLatin1String("compensate"))
        json.insert(QStringLiteral("compensate_op"), compensateOperation);
    if (!branchId.isEmpty())
        json.insert(QStringLiteral("branch_id"), branchId);
    if (commitPhase)
        json.insert(QStringLiteral("commit_phase"), true);
    if (compensateFailed)
        json.insert(QStringLiteral("compensate_failed"), true);
    return json;
}

SagaStepDefinition SagaStepDefinition::fromStored(const QString &name, StepKind kind,
                                                  const QJsonObject &stored)
{
    SagaStepDefinition step;
    step.name = name;
    step.kind = kind;
    step.actionUrl = stored.value(QStringLiteral("action_url")).toString();
    step.compensateUrl = stored.value(QStringLiteral("compensate_url")).toString();
    step.payload = QJsonDocument(stored.value(QStringLiteral("payload")).toObject())
                       .toJson(QJsonDocument::Compact);
    step.amount = qint64(stored.value(QStringLiteral("amount")).toDouble());
    step.currency = stored.value(QStringLiteral("currency")).toString();
    step.source = stored.value(QStringLiteral("source")).toString();
    step.chargeStep = stored.value(QStringLiteral("charge_step")).toString();
    step.retry = storedPolicy(stored.value(QStringLiteral("retry")).toObject(), step.retry);
    step.compensation = storedPolicy(stored.value(QStringLiteral("compensation_retry")).toObject(),
                                     step.compensation);
    step.operation = stored.value(QStringLiteral("op")).toString(step.operation);
    step.compensateOperation =
        stored.value(QStringLiteral("compensate_op")).toString(step.compensateOperation);
    step.branchId = stored.value(QStringLiteral("branch_id")).toString();
    step.commitPhase = stored.value(QStringLiteral("commit_phase")).toBool();
    step.compensateFailed = stored.value(QStringLiteral("compensate_failed")).toBool();
    return step;
}

Result<SagaDefinition> SagaDefinition::parse(const QJsonObject &json,
                                             const CurrencyTable &currencies,
                                             qint64 maxChargeAmount)
{
    if (Status known = knownKeys(json,
                                 {QStringLiteral("name"), QStringLiteral("version"),
                                  QStringLiteral("business_key"), QStringLiteral("steps"),
                                  QStringLiteral("stuck_after_seconds"),
                                  QStringLiteral("max_compensation_rounds")},
                                 {});
        !known)
        return known.error();
    SagaDefinition definition;
    Result<QString> sagaName = nameField(json, QStringLiteral("name"), true);
    if (!sagaName)
        return sagaName.error();
    definition.name = *sagaName;
    Result<int> version =
        boundedInt(json, QStringLiteral("version"), QStringLiteral("version"), 1, 1000000, 1);
    Result<int> stuck = boundedInt(json, QStringLiteral("stuck_after_seconds"),
                                   QStringLiteral("stuck_after_seconds"), 1, 30 * 86400, 300);
    Result<int> rounds = boundedInt(json, QStringLiteral("max_compensation_rounds"),
                                    QStringLiteral("max_compensation_rounds"), 1, 10, 3);
    for (const Result<int> *each : {&version, &stuck, &rounds})
        if (!*each)
            return each->error();
    definition.version = *version;
    definition.stuckAfterSeconds = *stuck;
    definition.maxCompensationRounds = *rounds;
    if (json.contains(QStringLiteral("business_key"))) {
        const QString key = json.value(QStringLiteral("business_key")).toString();
        if (key.isEmpty() || key.size() > 128)
            return invalid(QStringLiteral("business_key"),
                           QStringLiteral("business_key must be a string of 1-128 characters"));
        definition.businessKey = key;
    }
    const QJsonValue steps = json.value(QStringLiteral("steps"));
    if (!steps.isArray() || steps.toArray().isEmpty() || steps.toArray().size() > MaxSteps)
        return (steps.isUndefined() ? missing : invalid)(
            QStringLiteral("steps"),
            QStringLiteral("steps must be a list of 1 to %1 steps").arg(MaxSteps));
    const QJsonArray list = steps.toArray();
    for (int i = 0; i < list.size(); ++i) {
        Result<SagaStepDefinition> step =
            parseStep(list.at(i), i, currencies, maxChargeAmount, definition.steps);
        if (!step)
            return step.error();
        definition.steps.append(*step);
    }
    return definition;
}

namespace {

// One TCC branch: its try step (cancel as the compensation) and its confirm.
Result<std::pair<SagaStepDefinition, SagaStepDefinition>>
parseTccBranch(const QJsonObject &branch, int index, const QList<SagaStepDefinition> &tries)
{
    const QString prefix = QStringLiteral("branches[%1].").arg(index);
    if (Status known = knownKeys(branch,
                                 {QStringLiteral("name"), QStringLiteral("try_url"),
                                  QStringLiteral("confirm_url"), QStringLiteral("cancel_url"),
                                  QStringLiteral("payload"), QStringLiteral("retry"),
                                  QStringLiteral("confirm_retry")},
                                 prefix);
        !known)
        return known.error();
    Result<QString> branchName = nameField(branch, prefix + QStringLiteral("name"), true);
    if (!branchName)
        return branchName.error();
    for (const SagaStepDefinition &other : tries)
        if (other.name == *branchName + QStringLiteral(".try"))
            return invalid(
                prefix + QStringLiteral("name"),
                QStringLiteral("branch names must be unique; %1 is used twice").arg(*branchName));
    for (const QString &url :
         {QStringLiteral("try_url"), QStringLiteral("confirm_url"), QStringLiteral("cancel_url")}) {
        Result<QString> checked = participantUrl(branch, url, prefix + url, true);
        if (!checked)
            return checked.error();
    }
    SagaStepDefinition tryStep;
    QJsonObject asStep = branch;
    asStep.insert(QStringLiteral("action_url"), branch.value(QStringLiteral("try_url")));
    asStep.insert(QStringLiteral("compensate_url"), branch.value(QStringLiteral("cancel_url")));
    if (Status http = parseHttpStep(asStep, prefix, tryStep); !http)
        return http.error();
    Result<RetryPolicy> retry = retryPolicy(branch, QStringLiteral("retry"),
                                            prefix + QStringLiteral("retry"), tryStep.retry);
    if (!retry)
        return retry.error();
    Result<RetryPolicy> confirmRetry =
        retryPolicy(branch, QStringLiteral("confirm_retry"),
                    prefix + QStringLiteral("confirm_retry"), tryStep.compensation);
    if (!confirmRetry)
        return confirmRetry.error();
    tryStep.name = *branchName + QStringLiteral(".try");
    tryStep.retry = *retry;
    tryStep.compensation = *confirmRetry;
    tryStep.operation = QStringLiteral("try");
    tryStep.compensateOperation = QStringLiteral("cancel");
    tryStep.branchId = QStringLiteral("%1").arg(index + 1, 2, 10, QLatin1Char('0'));
    tryStep.compensateFailed = true;
    SagaStepDefinition confirm = tryStep;
    confirm.name = *branchName + QStringLiteral(".confirm");
    confirm.actionUrl = branch.value(QStringLiteral("confirm_url")).toString();
    confirm.compensateUrl.clear();
    confirm.operation = QStringLiteral("confirm");
    confirm.retry = *confirmRetry;
    confirm.commitPhase = true;
    confirm.compensateFailed = false;
    return std::pair<SagaStepDefinition, SagaStepDefinition>{tryStep, confirm};
}

} // namespace

Result<SagaDefinition> SagaDefinition::parseTcc(const QJsonObject &json)
{
    if (Status known = knownKeys(json,
                                 {QStringLiteral("name"), QStringLiteral("version"),
                                  QStringLiteral("business_key"), QStringLiteral("branches"),
                                  QStringLiteral("stuck_after_seconds"),
                                  QStringLiteral("max_compensation_rounds")},
                                 {});
        !known)
        return known.error();
    // The saga fields mean the same here; the branches become steps.
    QJsonObject sagaFields = json;
    sagaFields.remove(QStringLiteral("branches"));
    sagaFields.insert(QStringLiteral("steps"),
                      QJsonArray{QJsonObject{
                          {QStringLiteral("name"), QStringLiteral("x")},
                          {QStringLiteral("action_url"), QStringLiteral("https://placeholder/")}}});
    Result<SagaDefinition> parsed = parse(sagaFields, CurrencyTable(), 0);
    if (!parsed)
        return parsed.error();
    SagaDefinition definition = *parsed;
    definition.transType = QStringLiteral("tcc");
    definition.steps.clear();
    const QJsonValue branches = json.value(QStringLiteral("branches"));
    if (!branches.isArray() || branches.toArray().isEmpty() ||
        branches.toArray().size() > MaxSteps / 2)
        return (branches.isUndefined() ? missing : invalid)(
            QStringLiteral("branches"),
            QStringLiteral("branches must be a list of 1 to %1 branches").arg(MaxSteps / 2));
    QList<SagaStepDefinition> confirms;
    const QJsonArray list = branches.toArray();
    for (int i = 0; i < list.size(); ++i) {
        Result<std::pair<SagaStepDefinition, SagaStepDefinition>> branch =
            parseTccBranch(list.at(i).toObject(), i, definition.steps);
        if (!branch)
            return branch.error();
        definition.steps.append(branch->first);
        confirms.append(branch->second);
    }
    definition.steps += confirms;
    return definition;
}

} // namespace keel
