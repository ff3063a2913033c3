// The request fingerprint's canonical form. Field names are keel's own
// constants; values are whatever the client sent. Two requests share a
// canonical form exactly when they carry the same fields with the same
// values, in any order: no value can impersonate a field boundary.
#include "FuzzInput.h"

#include "core/idempotency/Fingerprint.h"

#include <algorithm>

using namespace keel;

namespace {

using Fields = QList<std::pair<QString, QString>>;

// Values separated by NUL, each given the next of a few real field names.
Fields fieldsOf(const QByteArray &request)
{
    static const QStringList Names{QStringLiteral("amount"), QStringLiteral("currency"),
                                   QStringLiteral("description"), QStringLiteral("source"),
                                   QStringLiteral("metadata[order]")};
    Fields fields;
    const QList<QByteArray> values = request.split('\0');
    for (qsizetype i = 0; i < values.size(); ++i)
        fields.append({Names[i % Names.size()], QString::fromUtf8(values[i])});
    return fields;
}

QString canonicalOf(const Fields &fields)
{
    Fingerprint print(QStringLiteral("POST /v1/charges"));
    for (const auto &[field, value] : fields)
        print.add(field, value);
    return print.canonical();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray input = fuzz::bytes(data, size);
    const qsizetype split = input.indexOf('\x01');
    Fields first = fieldsOf(split < 0 ? input : input.left(split));
    Fields second = split < 0 ? first : fieldsOf(input.mid(split + 1));
    std::reverse(second.begin(), second.end()); // order never matters
    const bool sameText = canonicalOf(first) == canonicalOf(second);
    std::sort(first.begin(), first.end());
    std::sort(second.begin(), second.end());
    fuzz::require(sameText == (first == second),
                  "same canonical form exactly when the same fields and values");
    return 0;
}
