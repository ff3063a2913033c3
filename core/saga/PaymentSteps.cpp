#include "core/saga/PaymentSteps.h"

#include "core/idempotency/Fingerprint.h"
#include "core/idempotency/IdempotencyKey.h"
#include "core/payment/ChargeRequest.h"
#include "core/payment/ChargeService.h"
#include "core/payment/PaymentContext.h"
#include "core/payment/PaymentRepository.h"
#include "core/payment/RefundRepository.h"
#include "core/payment/RefundRequest.h"
#include "core/payment/RefundService.h"
#include "core/saga/SagaRecord.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace keel {
namespace {

using Kind = PaymentOutcome::Kind;
using Verdict = StepAnswer::Verdict;

IdempotencyKey keyFor(const QString &text)
{
    // Derived from ids keel generated: always a valid key.
    return *IdempotencyKey::parse(text.toUtf8(), true);
}

Merchant merchantOf(const SagaRecord &saga)
{
    Merchant merchant;
    merchant.id = saga.merchantId;
    return merchant;
}

StepAnswer transient(const PaymentOutcome &outcome, Verdict verdict)
{
    return StepAnswer::of(verdict, outcome.error.message.isEmpty()
                                       ? QStringLiteral("the payment is busy; trying again")
                                       : outcome.error.message);
}

// What a compensating refund's outcome means for its step.
StepAnswer refundAnswer(const PaymentOutcome &outcome, const ChargeRecord &charge)
{
    switch (outcome.kind) {
    case Kind::Refund:
        if (outcome.refund->status == QLatin1String("succeeded"))
            return StepAnswer::of(Verdict::Succeeded);
        if (outcome.refund->status == QLatin1String("pending"))
            return StepAnswer::of(
                Verdict::Ongoing,
                QStringLiteral("the refund %1 is pending").arg(outcome.refund->publicId));
        return StepAnswer::of(
            Verdict::Retryable,
            QStringLiteral("the channel refused the refund %1").arg(outcome.refund->publicId));
    case Kind::RefundInProgress:
    case Kind::KeyInFlight:
    case Kind::Contended:
        return transient(outcome, Verdict::Ongoing);
    case Kind::ChargeNotRefundable:
        if (outcome.charge && outcome.charge->amountRefunded >= outcome.charge->amountCaptured)
            return StepAnswer::of(Verdict::Succeeded);
        return StepAnswer::of(
            Verdict::Retryable,
            QStringLiteral("the charge %1 cannot be refunded now").arg(charge.publicId));
    case Kind::ChargeHeldInSuspense:
        return StepAnswer::of(Verdict::Retryable,
                              QStringLiteral("the charge %1's money is held in suspense case %2")
                                  .arg(charge.publicId, outcome.reference));
    case Kind::ChannelUnavailable:
    case Kind::StoreUnavailable:
    case Kind::Replayed:
        return transient(outcome, Verdict::Retryable);
    case Kind::Charge:
    case Kind::CardDeclined:
    case Kind::AuthorizationFailed:
    case Kind::CaptureNotProcessed:
    case Kind::KeyReusedDifferently:
    case Kind::InvalidRequest:
    case Kind::ChargeNotFound:
    case Kind::RefundNotFound:
    case Kind::ChargeNotCapturable:
    case Kind::RefundExceedsBalance:
    case Kind::OrderNumberTaken:
    case Kind::RefundNumberTaken:
        break;
    }
    return StepAnswer::of(Verdict::Retryable,
                          QStringLiteral("the refund was refused: %1").arg(outcome.error.message));
}

} // namespace

PaymentSteps::PaymentSteps(const PaymentContext &context, LibpqConnection &connection,
                           const ReplyRenderer &replies)
    : m_context(context), m_connection(connection), m_replies(replies)
{}

QString PaymentSteps::orderNumber(const SagaRecord &saga, int stepIndex)
{
    return QStringLiteral("%1.%2").arg(saga.publicId).arg(stepIndex);
}

StepAnswer PaymentSteps::verdictOf(ChargeRecord &charge)
{
    StepAnswer answer;
    answer.chargeId = charge.id;
    answer.excerpt = QStringLiteral("%1 %2").arg(charge.publicId, stateName(charge.state));
    switch (charge.state) {
    case PaymentState::Captured:
    case PaymentState::Refunding:
    case PaymentState::Refunded:
        answer.verdict = Verdict::Succeeded;
        answer.resultJson = QJsonDocument(QJsonObject{{QStringLiteral("charge"), charge.publicId}})
                                .toJson(QJsonDocument::Compact);
        return answer;
    case PaymentState::Failed:
    case PaymentState::Canceled:
    case PaymentState::Reversed:
        answer.verdict = Verdict::Failed;
        answer.error =
            QStringLiteral("the charge %1 is %2").arg(charge.publicId, stateName(charge.state));
        return answer;
    case PaymentState::Created:
    case PaymentState::Authorizing:
    case PaymentState::Authorized:
    case PaymentState::Capturing:
        break;
    }
    answer.verdict = Verdict::Ongoing;
    answer.error =
        QStringLiteral("the charge %1 is still %2").arg(charge.publicId, stateName(charge.state));
    return answer;
}

StepAnswer PaymentSteps::charge(const SagaRecord &saga, const StepRecord &step)
{
    const QString order = orderNumber(saga, step.index);
    PaymentRepository payments(m_connection);
    Result<std::optional<ChargeRecord>> existing = payments.findByOrder(saga.merchantId, order);
    if (!existing)
        return StepAnswer::of(Verdict::Retryable, existing.error().message);
    if (existing->has_value() && isTerminal((*existing)->state))
        return verdictOf(**existing);

    const SagaStepDefinition &definition = step.definition;
    const std::optional<Currency> currency = m_context.currencies.find(definition.currency);
    if (!currency)
        return StepAnswer::of(
            Verdict::Failed,
            QStringLiteral("%1 is not a currency keel accepts").arg(definition.currency));
    ChargeRequest request;
    request.amount = definition.amount;
    request.currency = *currency;
    request.source = definition.source;
    request.description =
        QStringLiteral("saga %1 (%2), step %3").arg(saga.publicId, saga.name, definition.name);
    request.metadata = {{QStringLiteral("saga"), saga.publicId},
                        {QStringLiteral("step"), definition.name}};
    request.outTradeNo = order;
    request.terms = chargeTerms(request);
    request.fingerprint =
        Fingerprint(QStringLiteral("saga charge"))
            .add(QStringLiteral("order"), order)
            .add(QStringLiteral("terms"), QString::fromLatin1(request.terms.toHex()))
            .hash();
    const PaymentOutcome outcome =
        ChargeService(m_context, m_connection, m_replies)
            .create(merchantOf(saga), request, keyFor(QStringLiteral("saga:%1:action").arg(order)));
    switch (outcome.kind) {
    case Kind::Charge: {
        ChargeRecord charge = *outcome.charge;
        return verdictOf(charge);
    }
    case Kind::CardDeclined:
    case Kind::AuthorizationFailed: {
        StepAnswer answer =
            StepAnswer::of(Verdict::Failed,
                           QStringLiteral("the charge was declined (%1)").arg(outcome.declineCode));
        answer.chargeId = outcome.charge ? outcome.charge->id : 0;
        return answer;
    }
    case Kind::Replayed: {
        Result<std::optional<ChargeRecord>> stored = payments.findByOrder(saga.merchantId, order);
        if (!stored || !stored->has_value())
            return StepAnswer::of(Verdict::Retryable,
                                  QStringLiteral("the charge's stored answer names no charge"));
        return verdictOf(**stored);
    }
    case Kind::KeyInFlight:
    case Kind::Contended:
        return transient(outcome, Verdict::Ongoing);
    case Kind::ChannelUnavailable:
    case Kind::StoreUnavailable:
        return transient(outcome, Verdict::Retryable);
    case Kind::Refund:
    case Kind::CaptureNotProcessed:
    case Kind::KeyReusedDifferently:
    case Kind::InvalidRequest:
    case Kind::ChargeNotFound:
    case Kind::RefundNotFound:
    case Kind::ChargeNotCapturable:
    case Kind::ChargeNotRefundable:
    case Kind::ChargeHeldInSuspense:
    case Kind::RefundInProgress:
    case Kind::RefundExceedsBalance:
    case Kind::OrderNumberTaken:
    case Kind::RefundNumberTaken:
        break;
    }
    return StepAnswer::of(Verdict::Failed,
                          QStringLiteral("the charge was refused: %1").arg(outcome.error.message));
}

StepAnswer PaymentSteps::refundCharge(const SagaRecord &saga, const StepRecord &step)
{
    return refundRemaining(saga, step.index, QStringLiteral("c"), step.compensationAttempts, 0);
}

StepAnswer PaymentSteps::refund(const SagaRecord &saga, const StepRecord &step)
{
    for (const StepRecord &other : saga.steps)
        if (other.definition.name == step.definition.chargeStep)
            return refundRemaining(saga, other.index, QStringLiteral("r%1").arg(step.index),
                                   step.attempts, step.definition.amount);
    return StepAnswer::of(
        Verdict::Failed,
        QStringLiteral("the saga has no step named %1").arg(step.definition.chargeStep));
}

std::optional<StepAnswer> PaymentSteps::earlierRefund(const SagaRecord &saga,
                                                      const ChargeRecord &charge,
                                                      const QString &numberPrefix, int attempt)
{
    // An earlier attempt's refund that succeeded or is still pending decides:
    // never start a second refund beside it.
    RefundRepository refunds(m_connection);
    RefundService service(m_context, m_connection, m_replies);
    for (int earlier = 1; earlier < attempt; ++earlier) {
        Result<std::optional<RefundRecord>> previous = refunds.findByRefundNumber(
            saga.merchantId, charge.id, QStringLiteral("%1.%2").arg(numberPrefix).arg(earlier));
        if (!previous)
            return StepAnswer::of(Verdict::Retryable, previous.error().message);
        if (!previous->has_value() || (*previous)->status == QLatin1String("failed"))
            continue;
        RefundRecord refund = **previous;
        if (refund.status == QLatin1String("pending")) {
            const PaymentOutcome settled =
                service.resolveInFlight(saga.merchantId, refund.publicId);
            if (!settled.refund)
                return transient(settled, Verdict::Ongoing);
            refund = *settled.refund;
        }
        if (refund.status == QLatin1String("succeeded"))
            return StepAnswer::of(Verdict::Succeeded);
        if (refund.status == QLatin1String("pending"))
            return StepAnswer::of(Verdict::Ongoing,
                                  QStringLiteral("the refund %1 is pending").arg(refund.publicId));
    }
    return std::nullopt;
}

StepAnswer PaymentSteps::refundRemaining(const SagaRecord &saga, int chargeStep,
                                         const QString &operation, int attempt, qint64 amount)
{
    const QString order = orderNumber(saga, chargeStep);
    Result<std::optional<ChargeRecord>> found =
        PaymentRepository(m_connection).findByOrder(saga.merchantId, order);
    if (!found)
        return StepAnswer::of(Verdict::Retryable, found.error().message);
    if (!found->has_value())
        return StepAnswer::of(Verdict::Succeeded); // nothing was ever charged
    ChargeRecord charge = **found;
    if (charge.state == PaymentState::Authorizing || charge.state == PaymentState::Capturing)
        return StepAnswer::of(
            Verdict::Ongoing,
            QStringLiteral("the charge %1 is still in flight").arg(charge.publicId));
    if (charge.amountCaptured == 0)
        return StepAnswer::of(Verdict::Succeeded); // nothing was taken

    if (std::optional<StepAnswer> decided =
            earlierRefund(saga, charge, QStringLiteral("%1.%2").arg(order, operation), attempt))
        return *decided;
    if (amount == 0 && charge.amountRefunded >= charge.amountCaptured)
        return StepAnswer::of(Verdict::Succeeded); // refunded in full already

    RefundRequest request;
    request.chargeId = charge.publicId;
    if (amount > 0)
        request.amountText = QString::number(amount);
    request.reason = QStringLiteral("requested_by_customer");
    request.outRefundNo = QStringLiteral("%1.%2.%3").arg(order, operation).arg(attempt);
    request.metadata = {{QStringLiteral("saga"), saga.publicId}};
    request.fingerprint = Fingerprint(QStringLiteral("saga refund"))
                              .add(QStringLiteral("refund"), *request.outRefundNo)
                              .add(QStringLiteral("amount"), amount)
                              .hash();
    const PaymentOutcome outcome =
        RefundService(m_context, m_connection, m_replies)
            .create(merchantOf(saga), request,
                    keyFor(QStringLiteral("saga:%1").arg(*request.outRefundNo)));
    return refundAnswer(outcome, charge);
}

} // namespace keel
