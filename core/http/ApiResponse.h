#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <utility>

namespace keel {

struct Error;

// What an endpoint answers. The headers listed here are the whitelisted ones
// stored for replay; transport headers are the server's business.
struct ApiResponse {
    int status = 200;
    QList<std::pair<QByteArray, QByteArray>> headers;
    QByteArray body;

    void setHeader(const QByteArray &name, const QByteArray &value);
    QByteArray header(const QByteArray &name) const;
};

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

    ApiResponse response() const;
};

// A 400 naming the field an input Error is about.
ApiError invalidRequest(const Error &error);
ApiResponse jsonResponse(int status, QByteArray body);

} // namespace keel
