#include "core/net/Resolver.h"

#include "core/net/Deadline.h"

#include <arpa/inet.h>
#include <netdb.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

namespace keel {
namespace {

// What the resolving thread and the caller share; the last one out frees it,
// so a caller that gave up leaves the thread to finish on its own.
struct Lookup {
    std::mutex lock;
    std::condition_variable done;
    bool finished = false;
    int status = 0;
    std::vector<ResolvedAddress> addresses;
};

void lookUp(const std::shared_ptr<Lookup> &lookup, const QByteArray &host, const QByteArray &port)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    const int status = ::getaddrinfo(host.constData(), port.constData(), &hints, &found);
    std::vector<ResolvedAddress> addresses;
    for (const addrinfo *each = found; status == 0 && each; each = each->ai_next) {
        if (each->ai_addrlen > sizeof(sockaddr_storage))
            continue;
        ResolvedAddress address;
        std::memcpy(&address.address, each->ai_addr, each->ai_addrlen);
        address.length = each->ai_addrlen;
        address.family = each->ai_family;
        addresses.push_back(address);
    }
    if (found)
        ::freeaddrinfo(found);
    const std::lock_guard<std::mutex> held(lookup->lock);
    lookup->status = status;
    lookup->addresses = std::move(addresses);
    lookup->finished = true;
    lookup->done.notify_all();
}

} // namespace

std::vector<ResolvedAddress> resolveWithin(const QByteArray &host, int port,
                                           const Deadline &deadline, QString *error)
{
    auto lookup = std::make_shared<Lookup>();
    in6_addr literal;
    if (::inet_pton(AF_INET, host.constData(), &literal) == 1 ||
        ::inet_pton(AF_INET6, host.constData(), &literal) == 1)
        lookUp(lookup, host, QByteArray::number(port)); // an address: nothing to wait for
    else
        std::thread(lookUp, lookup, host, QByteArray::number(port)).detach();
    std::unique_lock<std::mutex> held(lookup->lock);
    const int leftMs = deadline.remainingMs();
    const auto finished = [&] {
        return lookup->finished;
    };
    if (leftMs < 0)
        lookup->done.wait(held, finished);
    else if (!lookup->done.wait_for(held, std::chrono::milliseconds(leftMs), finished)) {
        *error = QStringLiteral("cannot resolve %1 within the call's time")
                     .arg(QString::fromLatin1(host));
        return {};
    }
    if (lookup->status != 0 || lookup->addresses.empty()) {
        *error = QStringLiteral("cannot resolve %1: %2")
                     .arg(QString::fromLatin1(host),
                          QString::fromLocal8Bit(::gai_strerror(lookup->status)));
        return {};
    }
    return lookup->addresses;
}

} // namespace keel
