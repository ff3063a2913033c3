#pragma once

#include <QString>

#include <memory>

namespace keel {

// The client side of one TLS connection over a connected socket: TLS 1.2 or
// later, the peer's chain verified against the system's trust store (plus
// the authority configured with trustAlso) and its name or address checked
// against the host keel dialled. The socket keeps its own timeouts
// (SO_RCVTIMEO, SO_SNDTIMEO): a peer that stops answering fails a call, it
// never blocks one for ever.
class TlsSession final {
public:
    // Also trust the certificates in this PEM file, for every TLS session of
    // the process opened from now on (a private CA's root: the `--ca-file` of
    // a service). Empty: the system's store alone. An error names the file.
    static QString trustAlso(const QString &caFile);

    // Negotiates over `fd` for `host`, or says why not ("" when done). Nothing
    // of the caller's has been sent when this fails.
    QString handshake(int fd, const QString &host);

    enum class Io { Done, WouldBlock, Closed };
    // Writes all of `bytes`; Closed if the peer went away or refused them.
    Io write(const char *bytes, qsizetype size);
    // Reads what is there, up to `capacity` bytes, into `into`; `*got` says
    // how many. WouldBlock: the socket's timeout passed with no whole record.
    Io read(char *into, qsizetype capacity, qsizetype *got);
    // Whether decrypted bytes wait to be read.
    bool pending() const;

    TlsSession();
    ~TlsSession();
    TlsSession(const TlsSession &) = delete;
    TlsSession &operator=(const TlsSession &) = delete;

private:
    struct Ssl;
    std::unique_ptr<Ssl> m_ssl;
};

} // namespace keel
