#pragma once

#include "core/net/HttpClient.h"

namespace keel::test {

// For one test, plain http:// refused as in a deployment run without
// --allow-http; the test binaries allow it otherwise (their participants
// and merchants listen on loopback).
class PlainHttpRefused final {
public:
    PlainHttpRefused() { HttpClient::allowPlainHttp(false); }
    ~PlainHttpRefused() { HttpClient::allowPlainHttp(true); }
    PlainHttpRefused(const PlainHttpRefused &) = delete;
    PlainHttpRefused &operator=(const PlainHttpRefused &) = delete;
};

} // namespace keel::test
