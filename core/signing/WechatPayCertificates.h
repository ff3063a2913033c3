#pragma once

#include "core/Result.h"
#include "core/signing/RsaKey.h"

#include <QByteArray>
#include <QList>
#include <QMutex>

namespace keel {

struct WechatPayHeaders;

// The platform certificates WeChat Pay signs its answers with: those
// configured, and those downloaded from GET /v3/certificates when an answer
// names a serial keel does not hold (WeChat Pay rotating its key). A
// downloaded certificate is taken only if it decrypts with the merchant's
// APIv3 key, which AEAD_AES_256_GCM authenticates as WeChat Pay's own, and
// carries the serial it is listed under. Thread-safe.
class WechatPayCertificates final {
public:
    WechatPayCertificates(QList<RsaKey> configured, QByteArray apiV3Key);

    // Those not expired.
    QList<RsaKey> current() const;
    // Whether to download the list now: with an APIv3 key, at most once a
    // minute, so that answers naming unknown serials cannot make keel ask
    // WeChat Pay without end.
    bool refreshDue(qint64 now);
    // Takes the certificates a GET /v3/certificates answer lists; its own
    // signature must verify with one of them or of those already held. The
    // number of certificates new to keel.
    Result<int> adopt(const WechatPayHeaders &signedBy, const QByteArray &body, qint64 now);

private:
    mutable QMutex m_mutex;
    QList<RsaKey> m_certificates;
    QByteArray m_apiV3Key;
    qint64 m_lastRefresh = 0;
};

} // namespace keel
