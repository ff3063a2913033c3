#include "core/saga/PaymentSteps.h"

#include "core/Overloaded.h"

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
#include "core/saga/StepVerdicts.h"

namespace keel {
namespace {

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

} // namespace

PaymentSteps::PaymentSteps(const PaymentContext &context, LibpqConnection &connection,
                           const ReplyRenderer &replies)
    : m_context(context), m_connection(connection), m_replies(replies)
{}

QString PaymentSteps::orderNumber(const SagaRecord &saga, int stepIndex)
{
    return QStringLiteral("%1.%2").arg(saga.publicId).arg(stepIndex);
}

StepAnswer PaymentSteps::charge(const SagaRecord &saga, const StepRecord &step)
{
    const QString order = orderNumber(saga, step.index);
    PaymentRepository payments(m_connection);
    Result<std::optional<ChargeRecord>> existing = payments.findByOrder(saga.merchantId, order);
    if (!existing)
        return StepAnswer::of(Verdict::Retryable, existing.error().message);
    if (existing->has_value() && isTerminal((*existing)->state))
        return chargeStepAnswer(**existing);

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
    const auto refused = [&] {
        return StepAnswer::of(
            Verdict::Failed,
            QStringLiteral("the charge was refused: %1").arg(outcome.error.message));
    };
    const auto declined = [&] {
        StepAnswer answer =
            StepAnswer::of(Verdict::Failed,
                           QStringLiteral("the charge was declined (%1)").arg(outcome.declineCode));
        answer.chargeId = outcome.charge ? outcome.charge->id : 0;
        return answer;
    };
    return std::visit(
        Overloaded{[&](outcomes::Settled settled) {
                       return settled == outcomes::Settled::Charge
                                  ? chargeStepAnswer(*outcome.charge)
                                  : refused();
                   },
                   [&](outcomes::CardFailure failure) {
                       return failure == outcomes::CardFailure::CaptureNotProcessed ? refused()
                                                                                    : declined();
                   },
                   [&](outcomes::Replayed) { return storedChargeAnswer(saga.merchantId, order); },
                   [&](outcomes::Refused) { return refused(); },
                   [&](outcomes::NotNow later) {
                       return notNowStepAnswer(outcome, later);
                   }},
        outcome.family());
}

StepAnswer PaymentSteps::storedChargeAnswer(qint64 merchantId, const QString &order)
{
    Result<std::optional<ChargeRecord>> stored =
        PaymentRepository(m_connection).findByOrder(merchantId, order);
    if (!stored || !stored->has_value())
        return StepAnswer::of(Verdict::Retryable,
                              QStringLiteral("the charge's stored answer names no charge"));
    return chargeStepAnswer(**stored);
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
                return transientStepAnswer(settled, Verdict::Ongoing);
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
    return refundStepAnswer(outcome, charge);
}

} // namespace keel
