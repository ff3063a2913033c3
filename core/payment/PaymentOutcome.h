#pragma once

#include "core/Result.h"
#include "core/idempotency/IdempotencyStore.h"
#include "core/payment/ChargeRecord.h"
#include "core/payment/RefundRecord.h"

#include <QString>

#include <optional>
#include <variant>

namespace keel {

// PaymentOutcome's kinds by family. A consumer decides by family first, then
// switches over the few kinds of that family: a new kind is placed in its
// family once (PaymentOutcome::family), and the compiler then names every
// switch over that family that must say what to do with it.
namespace outcomes {
enum class Settled { Charge, Refund }; // the payment as it now stands
enum class CardFailure { Declined, AuthorizationFailed, CaptureNotProcessed };
struct Replayed {}; // the key's first answer, sent again as it was
// The request cannot be done as asked.
enum class Refused {
    KeyReusedDifferently,
    InvalidRequest,
    ChargeNotFound,
    RefundNotFound,
    ChargeNotCapturable,
    ChargeNotRefundable,
    ChargeHeldInSuspense,
    ChargeTakenBack,
    RefundExceedsBalance,
    OrderNumberTaken,
    RefundNumberTaken,
};
// The same request may succeed later.
enum class NotNow {
    KeyInFlight,
    RefundInProgress,
    Contended,
    ChannelUnavailable,
    StoreUnavailable
};
using Family = std::variant<Settled, CardFailure, Replayed, Refused, NotNow>;
} // namespace outcomes

// What a payment operation came to. The services say what happened in the
// domain's words; the API layer decides how a client is told (status codes,
// Stripe's objects), and renders the outcomes that an Idempotency-Key stores.
struct PaymentOutcome {
    enum class Kind {
        Charge,              // the charge as it now stands: new, captured, or still in flight
        Refund,              // the refund as it now stands
        CardDeclined,        // the network declined the card; the charge failed
        AuthorizationFailed, // the network could not process it; the charge failed
        CaptureNotProcessed, // the capture did not happen; the charge stays authorized
        Replayed,            // the key's first answer, to be sent again as it was
        KeyReusedDifferently,
        KeyInFlight,    // the key's first request is still running
        InvalidRequest, // `error` names the field
        ChargeNotFound, // `reference` is the id asked for
        RefundNotFound,
        ChargeNotCapturable, // `charge` is in a state that cannot be captured
        ChargeNotRefundable, // `charge` is in a state that cannot be refunded
        // `charge`'s money is held in the open suspense case `reference`: a
        // refund now would take from the merchant what suspense already holds.
        ChargeHeldInSuspense,
        // `charge`'s channel took money back (a dispute a run saw, or one an
        // approved take-back booked): the customer has it, so a refund may ask
        // for no more than `refundable`; `amount` is what was asked.
        ChargeTakenBack,
        RefundInProgress, // `charge` has another refund running; try again later
        RefundExceedsBalance,
        OrderNumberTaken,   // `charge` owns `reference` (out_trade_no) with other terms
        RefundNumberTaken,  // `refund` owns `reference` (out_refund_no) with another amount
        Contended,          // a concurrent request moved the payment first; try again
        ChannelUnavailable, // the channel could not be asked; try again with the same key
        StoreUnavailable,   // the database failed; try again with the same key
    };

    Kind kind = Kind::StoreUnavailable;
    std::optional<ChargeRecord> charge;
    std::optional<RefundRecord> refund;
    StoredResponse stored; // Replayed
    Error error; // InvalidRequest, *NotFound (field); the cause of the transient kinds, for logs
    QString reference;
    QString declineCode;
    qint64 amount = 0;     // RefundExceedsBalance, ChargeTakenBack: asked for
    qint64 refundable = 0; // RefundExceedsBalance, ChargeTakenBack: what is left
    int retryAfterSeconds = 0;

    static PaymentOutcome of(Kind kind);
    static PaymentOutcome ofCharge(Kind kind, const ChargeRecord &charge);
    static PaymentOutcome ofRefund(Kind kind, const RefundRecord &refund);
    // `field` names the request field that held the missing id.
    static PaymentOutcome notFound(Kind kind, const QString &reference,
                                   const QString &field = QStringLiteral("id"));
    static PaymentOutcome invalid(const Error &error);
    // What a failure below the service comes to: a lost race, an unreachable
    // channel, or an unavailable database, told apart by the error's code.
    static PaymentOutcome failure(const Error &error);

    bool is(Kind other) const { return kind == other; }
    outcomes::Family family() const;
    // Whether the operation reached an answer its key may keep (every kind
    // but the transient ones).
    bool final() const;
};

// A record a service looked up for a merchant, or the outcome that answers
// instead: the database failed, or there is no such record (`missing`,
// naming `reference` and the request `field` that held it).
template <typename Record>
std::variant<Record, PaymentOutcome> foundOr(const Result<std::optional<Record>> &found,
                                             PaymentOutcome::Kind missing, const QString &reference,
                                             const QString &field = QStringLiteral("id"))
{
    if (!found)
        return PaymentOutcome::failure(found.error());
    if (!found->has_value())
        return PaymentOutcome::notFound(missing, reference, field);
    return **found;
}

} // namespace keel
