#include "core/net/HttpResponse.h"

namespace keel {

void HttpResponse::setHeader(const QByteArray &name, const QByteArray &value)
{
    for (auto &header : headers) {
        if (header.first.compare(name, Qt::CaseInsensitive) == 0) {
            header.second = value;
            return;
        }
    }
    headers.append({name, value});
}

QByteArray HttpResponse::header(const QByteArray &name) const
{
    for (const auto &header : headers)
        if (header.first.compare(name, Qt::CaseInsensitive) == 0)
            return header.second;
    return {};
}

HttpResponse jsonResponse(int status, QByteArray body)
{
    HttpResponse response;
    response.status = status;
    response.body = std::move(body);
    response.setHeader("Content-Type", "application/json");
    return response;
}

} // namespace keel
