// The Idempotency-Key header parser: any header value is accepted or refused,
// and an accepted key is 1..255 characters, the same whether it came bare or
// as a structured-field string.
#include "FuzzInput.h"

#include "core/idempotency/IdempotencyKey.h"

using namespace keel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray header = fuzz::bytes(data, size);
    const Result<IdempotencyKey> key = IdempotencyKey::parse(header, true);
    if (!key)
        return 0;
    fuzz::require(!key->text().isEmpty(), "an accepted key is not empty");
    fuzz::require(key->text().size() <= IdempotencyKey::MaxLength, "an accepted key is short");
    if (!key->text().contains(u'"') && !key->text().contains(u'\\')) {
        const Result<IdempotencyKey> quoted =
            IdempotencyKey::parse('"' + key->text().toUtf8() + '"', true);
        fuzz::require(quoted.ok() && quoted->text() == key->text(),
                      "the quoted form of an accepted key is the same key");
    }
    return 0;
}
