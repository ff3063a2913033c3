#include "core/signing/SignatureVerdict.h"

namespace keel {

QString verdictCode(SignatureVerdict verdict)
{
    switch (verdict) {
    case SignatureVerdict::Valid:
        return QStringLiteral("valid");
    case SignatureVerdict::Malformed:
        return QStringLiteral("malformed");
    case SignatureVerdict::OutsideWindow:
        return QStringLiteral("outside_window");
    case SignatureVerdict::UnknownKey:
        return QStringLiteral("unknown_key");
    case SignatureVerdict::Mismatch:
        return QStringLiteral("mismatch");
    }
    return QStringLiteral("malformed");
}

QString verdictMessage(SignatureVerdict verdict)
{
    switch (verdict) {
    case SignatureVerdict::Valid:
        return QStringLiteral("the signature is valid");
    case SignatureVerdict::Malformed:
        return QStringLiteral("the signature or its fields are missing or unreadable");
    case SignatureVerdict::OutsideWindow:
        return QStringLiteral("the signature's timestamp is outside the accepted window");
    case SignatureVerdict::UnknownKey:
        return QStringLiteral("the notification is signed by a certificate keel does not know");
    case SignatureVerdict::Mismatch:
        return QStringLiteral("the signature does not match the notification");
    }
    return {};
}

} // namespace keel
