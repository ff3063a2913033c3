// A merchant's HTTPS endpoint for keel's notifications, checking each with
// Stripe's own library as a merchant's server would. Prints "listening PORT",
// then "verified <event id> <type>" or "refused <why>" for each POST.
// Usage: node notify_receiver.mjs CERT KEY WEBHOOK_SECRET
import fs from 'node:fs';
import https from 'node:https';
import Stripe from 'stripe';

const [certificate, key, secret] = process.argv.slice(2);
const stripe = new Stripe('sk_test_unused_by_webhook_checks');

const server = https.createServer(
  { cert: fs.readFileSync(certificate), key: fs.readFileSync(key) },
  (request, response) => {
    const parts = [];
    request.on('data', (part) => parts.push(part));
    request.on('end', () => {
      try {
        const event = stripe.webhooks.constructEvent(
          Buffer.concat(parts), request.headers['stripe-signature'], secret);
        console.log(`verified ${event.id} ${event.type}`);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"received":true}');
      } catch (error) {
        console.log(`refused ${error.message}`);
        response.writeHead(400);
        response.end();
      }
    });
  });
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
