#pragma once

#include "core/signing/SignatureVerdict.h"

#include <QByteArray>
#include <QList>

namespace keel {

// Stripe's webhook signature: `Stripe-Signature: t=<unix>,v1=<hex>` where v1
// is HMAC-SHA256 of "<t>.<body>" keyed by the whole `whsec_` secret. Keel
// signs its merchant notifications this way (so any Stripe library verifies
// them) and checks Stripe's own webhooks with it.
namespace StripeSignature {

QByteArray header(const QByteArray &secret, qint64 timestamp, const QByteArray &body);
// One v1 per secret, as Stripe signs while a rotated-away secret is still live.
QByteArray header(const QList<QByteArray> &secrets, qint64 timestamp, const QByteArray &body);

// Valid when any v1 in the header matches any of `secrets` (a rotation keeps
// the old secret for a while; Stripe sends one v1 per active secret) and t is
// within `toleranceSeconds` of `now`. Compared in constant time.
SignatureVerdict verify(const QByteArray &header, const QByteArray &body,
                        const QList<QByteArray> &secrets, qint64 now, int toleranceSeconds = 300);

} // namespace StripeSignature
} // namespace keel
