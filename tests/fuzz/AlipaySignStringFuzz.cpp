// Alipay's sign string from any parameters, against an independent reading
// of Alipay's rule: drop sign, sign_type and empty values, sort by key (a
// repeated key cannot be signed: empty), join raw k=v with '&'.
#include "FuzzInput.h"

#include "core/signing/AlipaySignature.h"

#include <QMap>

using namespace keel;

namespace {

QByteArray expected(const AlipaySignature::Parameters &parameters)
{
    QMap<QString, QString> kept;
    QStringList seen;
    for (const auto &[key, value] : parameters) {
        if (seen.contains(key))
            return {};
        seen << key;
        if (key != QLatin1String("sign") && key != QLatin1String("sign_type") && !value.isEmpty())
            kept.insert(key, value);
    }
    QByteArrayList pairs;
    for (auto it = kept.cbegin(); it != kept.cend(); ++it)
        pairs << it.key().toUtf8() + '=' + it.value().toUtf8();
    return pairs.join('&');
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    AlipaySignature::Parameters parameters;
    for (const QByteArray &pair : fuzz::bytes(data, size).split('\0')) {
        const qsizetype equals = pair.indexOf('=');
        parameters.append({QString::fromUtf8(equals < 0 ? pair : pair.left(equals)),
                           QString::fromUtf8(equals < 0 ? QByteArray() : pair.mid(equals + 1))});
    }
    fuzz::require(AlipaySignature::signString(parameters) == expected(parameters),
                  "the sign string follows Alipay's rule");
    return 0;
}
