// A saga participant served over HTTPS, as a service in a deployment that
// encrypts its internal calls would be. Answers every POST with DTM's
// SUCCESS and prints "call <path and query>" for each; "listening PORT" first.
// Usage: node https_participant.mjs CERT KEY
import fs from 'node:fs';
import https from 'node:https';

const [certificate, key] = process.argv.slice(2);
const server = https.createServer(
  { cert: fs.readFileSync(certificate), key: fs.readFileSync(key) },
  (request, response) => {
    request.resume();
    request.on('end', () => {
      console.log(`call ${request.url}`);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"dtm_result":"SUCCESS"}');
    });
  });
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
