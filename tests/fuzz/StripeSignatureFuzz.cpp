// The Stripe-Signature header: any header is judged without crashing and is
// never Valid for a secret it was not made with; a header keel makes for any
// secret, time and body always verifies, and stops verifying when one byte of
// the body changes.
#include "FuzzInput.h"

#include "core/signing/StripeSignature.h"

using namespace keel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QList<QByteArray> parts = fuzz::fields(fuzz::bytes(data, size), 2);
    const QByteArray &header = parts[0];
    const QByteArray secret = "whsec_" + parts[1];
    const QByteArray &body = parts[2];
    constexpr qint64 Now = 1767225600;
    const SignatureVerdict judged = StripeSignature::verify(header, body, {secret}, Now);
    const QByteArray made = StripeSignature::header(secret, Now, body);
    if (judged == SignatureVerdict::Valid)
        fuzz::require(header.contains(made.mid(made.indexOf("v1="))),
                      "only a header carrying the body's own HMAC is valid");
    fuzz::require(StripeSignature::verify(made, body, {secret}, Now) == SignatureVerdict::Valid,
                  "a header keel made verifies");
    fuzz::require(StripeSignature::verify(made, body + 'x', {secret}, Now) !=
                      SignatureVerdict::Valid,
                  "a changed body does not verify");
    fuzz::require(StripeSignature::verify(made, body, {secret + 'x'}, Now) !=
                      SignatureVerdict::Valid,
                  "another secret does not verify");
    return 0;
}
