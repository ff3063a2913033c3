#pragma once

#include <QString>

class QUrl;

namespace keel {

class HttpClient;

// One keep-alive client per origin (scheme, host, port) and timeout, per
// thread, for callers that call the same few hosts over and over (merchant
// notifications, saga participants): a TCP and TLS handshake per call costs
// more than most calls. Null for a URL keel will not call
// (HttpClient::refusal says why). The client stays the pool's; it must not
// be used after the thread next asks for one, which may drop it.
// `authority`: a PEM file trusted for this target alone (HttpClient::setAuthority).
HttpClient *pooledClient(const QUrl &url, int timeoutMs, const QString &authority = {});

} // namespace keel
