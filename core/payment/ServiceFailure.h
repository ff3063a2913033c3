#pragma once

namespace keel {

struct ApiResponse;
struct Error;

// How the payment services answer when something below them failed: a lost
// race (another request moved the payment or took its key) is a retryable
// 409; anything else is a retryable 503, with the reason logged for operators
// and kept from the client.
ApiResponse serviceFailure(const Error &error);

} // namespace keel
