#pragma once

#include <QString>

namespace keel {

// What checking an incoming notification's signature found. Everything but
// Valid is a rejection, counted in /metrics by code().
enum class SignatureVerdict {
    Valid,
    Malformed,     // a header or field missing or unreadable
    OutsideWindow, // signed too long ago (or too far ahead): a replay
    UnknownKey,    // signed by a certificate serial keel was not given
    Mismatch,      // the signature does not match: altered, or the wrong key
};

// A metric label: malformed, outside_window, unknown_key, mismatch (valid).
QString verdictCode(SignatureVerdict verdict);
// One line for the sender and the log.
QString verdictMessage(SignatureVerdict verdict);

} // namespace keel
