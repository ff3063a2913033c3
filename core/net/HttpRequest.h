#pragma once

#include <QByteArray>
#include <QList>

#include <optional>
#include <utility>

namespace keel {

// A parsed HTTP request, independent of the server library.
struct HttpRequest {
    QByteArray method;
    QByteArray path; // without the query string
    QByteArray query;
    QList<std::pair<QByteArray, QByteArray>> headers; // names lower-cased
    QByteArray body;

    // The header's value; nullopt if absent. `count` receives how many times it appeared.
    std::optional<QByteArray> header(const QByteArray &lowerName, int *count = nullptr) const
    {
        std::optional<QByteArray> found;
        int seen = 0;
        for (const auto &[name, value] : headers) {
            if (name == lowerName) {
                if (!found)
                    found = value;
                ++seen;
            }
        }
        if (count)
            *count = seen;
        return found;
    }
};

} // namespace keel
