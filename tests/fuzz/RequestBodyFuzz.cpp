// The request body parsers (form and JSON) on any bytes: they answer or
// refuse, never crash, and what they accept has unique keys and round-trips
// through the form encoding to the same parameters.
#include "FuzzInput.h"

#include "core/api/RequestParams.h"

#include <QSet>
#include <QUrl>

using namespace keel;

namespace {

QByteArray asForm(const RequestParams &params)
{
    QByteArrayList pairs;
    for (const auto &[key, value] : params.entries())
        pairs << QUrl::toPercentEncoding(key) + '=' + QUrl::toPercentEncoding(value);
    return pairs.join('&');
}

void check(const Result<RequestParams> &parsed)
{
    if (!parsed)
        return;
    QSet<QString> keys;
    for (const auto &[key, value] : parsed->entries()) {
        fuzz::require(!keys.contains(key), "an accepted body has unique keys");
        keys.insert(key);
    }
    const Result<RequestParams> again = RequestParams::fromForm(asForm(*parsed));
    fuzz::require(again.ok(), "what was accepted re-encodes as a valid form");
    fuzz::require(again->entries() == parsed->entries(), "the form round trip keeps every pair");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray body = fuzz::bytes(data, size);
    check(RequestParams::fromForm(body));
    check(RequestParams::fromJson(body));
    return 0;
}
