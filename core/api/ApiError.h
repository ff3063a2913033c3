#pragma once

#include "core/net/HttpResponse.h"

#include <QString>

namespace keel {

struct Error;

// Stripe's error object: {"error": {"type", "code", "message", "param", ...}}.
struct ApiError {
    int status = 400;
    QString type = QStringLiteral("invalid_request_error");
    QString code;
    QString message;
    QString param;
    QString declineCode;
    QString chargeId; // card errors name the charge they created
    bool shouldRetry = false;
    int retryAfterSeconds = 0;

    HttpResponse response() const;
};

// A 400 naming the field an input Error is about.
ApiError invalidRequest(const Error &error);

} // namespace keel
