// Drives keel's gateway with Stripe's official Node library, unchanged but for
// the host. Exits non-zero, saying what differed, if keel's answers are not
// what the library expects. Usage: node stripe_client.mjs URL API_KEY
import Stripe from 'stripe';
import assert from 'node:assert/strict';

const [, , url, key] = process.argv;
const target = new URL(url);
const stripe = new Stripe(key, {
  host: target.hostname, port: Number(target.port), protocol: 'http', maxNetworkRetries: 2,
});

const key1 = 'stripe-node-' + process.pid;
const params = { amount: 2000, currency: 'usd', source: 'tok_visa', metadata: { order: '7' } };
const charge = await stripe.charges.create(params, { idempotencyKey: key1 });
assert.match(charge.id, /^ch_/);
assert.equal(charge.object, 'charge');
assert.equal(charge.status, 'succeeded');
assert.equal(charge.amount_captured, 2000);
assert.equal(charge.metadata.order, '7');

const again = await stripe.charges.create(params, { idempotencyKey: key1 });
assert.equal(again.id, charge.id);
assert.equal(again.lastResponse.headers['idempotent-replayed'], 'true');

const fetched = await stripe.charges.retrieve(charge.id);
assert.equal(fetched.id, charge.id);

// No key given: the library makes one up for its own retries.
const refund = await stripe.refunds.create({ charge: charge.id, amount: 500 });
assert.match(refund.id, /^re_/);
assert.equal(refund.status, 'succeeded');
assert.equal(refund.amount, 500);

await assert.rejects(
  stripe.charges.create({ amount: 100, currency: 'usd', source: 'tok_chargeDeclinedInsufficientFunds' }),
  (e) => e.type === 'StripeCardError' && e.code === 'card_declined' &&
    e.decline_code === 'insufficient_funds' && e.statusCode === 402);

await assert.rejects(
  stripe.charges.create({ amount: -5, currency: 'usd', source: 'tok_visa' }),
  (e) => e.type === 'StripeInvalidRequestError' && e.param === 'amount' && e.statusCode === 400);

const authorized = await stripe.charges.create({ amount: 3000, currency: 'eur', source: 'tok_visa', capture: false });
assert.equal(authorized.captured, false);
const captured = await stripe.charges.capture(authorized.id);
assert.equal(captured.captured, true);
assert.equal(captured.amount_captured, 3000);

console.log('stripe-node', Stripe.PACKAGE_VERSION ?? '', 'agrees with keel');
