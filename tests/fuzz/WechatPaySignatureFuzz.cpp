// WeChat Pay API v3 notification headers: any timestamp, nonce, serial,
// signature and body are judged without crashing; a verdict of Valid needs
// exactly the signature the platform key makes over "<timestamp>\n<nonce>\n
// <body>\n" (PKCS#1 v1.5 is deterministic, so it can be made again here);
// headers keel signs verify, and stop verifying when the body, the nonce or
// the timestamp changes, or the serial names another certificate.
#include "FuzzInput.h"

#include "core/signing/RsaKey.h"
#include "core/signing/WechatPaySignature.h"

#include <QFile>

using namespace keel;

namespace {

constexpr qint64 Now = 1764554401; // the committed vector's own time

RsaKey load(const char *name)
{
    QFile file(QStringLiteral(KEEL_SIGNING_DATA "/") + QLatin1String(name));
    if (!file.open(QIODevice::ReadOnly))
        fuzz::violated("the test key is readable");
    Result<RsaKey> key = RsaKey::fromPem(file.readAll(), QLatin1String(name));
    if (!key)
        fuzz::violated("the test key loads");
    return *key;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const RsaKey platform = load("wechatpay.key");
    static const RsaKey certificate = load("wechatpay.crt");
    const QList<QByteArray> parts = fuzz::fields(fuzz::bytes(data, size), 4);
    const WechatPayHeaders headers{parts[0], parts[1], parts[2], parts[3]};
    const QByteArray &body = parts[4];
    using namespace WechatPaySignature;
    fuzz::require(message(headers.timestamp, headers.nonce, body) ==
                      headers.timestamp + '\n' + headers.nonce + '\n' + body + '\n',
                  "the signed message is the three fields, each followed by a newline");
    if (verify(headers, body, {certificate}, Now) == SignatureVerdict::Valid) {
        const auto given = QByteArray::fromBase64Encoding(headers.signature);
        fuzz::require(
            given.decoded ==
                platform.signSha256(message(headers.timestamp, headers.nonce, body)).value(),
            "only the platform's own signature of these bytes is valid");
    }
    const QByteArray nonce = headers.nonce.isEmpty() ? QByteArray("n") : headers.nonce;
    Result<WechatPayHeaders> made =
        sign(body, platform, certificate.certificateSerial().toLatin1(), Now, nonce);
    fuzz::require(made.ok(), "the platform key signs");
    fuzz::require(verify(*made, body, {certificate}, Now) == SignatureVerdict::Valid,
                  "headers keel signs verify");
    fuzz::require(verify(*made, body + 'x', {certificate}, Now) != SignatureVerdict::Valid,
                  "a changed body does not verify");
    WechatPayHeaders altered = *made;
    altered.nonce += 'x';
    fuzz::require(verify(altered, body, {certificate}, Now) != SignatureVerdict::Valid,
                  "a changed nonce does not verify");
    altered = *made;
    altered.timestamp = QByteArray::number(Now - 1);
    fuzz::require(verify(altered, body, {certificate}, Now) != SignatureVerdict::Valid,
                  "a changed timestamp does not verify");
    altered = *made;
    altered.serial = "00" + altered.serial;
    fuzz::require(verify(altered, body, {certificate}, Now) == SignatureVerdict::UnknownKey,
                  "another serial is an unknown certificate");
    return 0;
}
