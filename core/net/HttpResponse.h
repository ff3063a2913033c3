#pragma once

#include <QByteArray>
#include <QList>

#include <utility>

namespace keel {

// What a handler answers: a status, headers and a body. The server adds the
// transport headers (length, connection) itself.
struct HttpResponse {
    int status = 200;
    QList<std::pair<QByteArray, QByteArray>> headers;
    QByteArray body;
    // Close the connection without answering: how a channel simulator loses
    // the answer to a request it has acted on.
    bool withheld = false;
    // Send the answer twice: how a faulty peer or proxy repeats itself, for
    // tests of the clients that must not read the copy as their next answer.
    bool repeated = false;

    void setHeader(const QByteArray &name, const QByteArray &value);
    QByteArray header(const QByteArray &name) const;
};

HttpResponse jsonResponse(int status, QByteArray body);

} // namespace keel
