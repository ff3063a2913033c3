#pragma once

#include <QString>

#include <memory>

namespace keel {

class Deadline;

// The client side of one TLS connection over a connected socket: TLS 1.2 or
// later, the peer's chain verified against the system's trust store (plus
// the authority configured with trustAlso) and its name or address checked
// against the host keel dialled. Every step waits no longer than the
// deadline it is given: a peer that stops answering, or answers a byte at a
// time, fails a call; it never holds one past its end.
class TlsSession final {
public:
    // Also trust the certificates in this PEM file, for every TLS session of
    // the process opened from now on (a private CA's root: the `--ca-file` of
    // a service). Empty: the system's store alone. An error names the file.
    static QString trustAlso(const QString &caFile);
    // Whether `caFile` can serve as one target's own authority (handshake's
    // `authority`): "" if it can, else why not, naming the file.
    static QString checkAuthority(const QString &caFile);

    // Negotiates over `fd` for `host`, or says why not ("" when done). Nothing
    // of the caller's has been sent when this fails. `authority`: a PEM file
    // trusted for this target alone, beside the system's store (a channel's
    // private CA); empty: the process's trust (trustAlso).
    QString handshake(int fd, const QString &host, const Deadline &deadline,
                      const QString &authority = {});
    // The last handshake failed because the peer's certificate did not
    // verify (not trusted, expired, another name), not for want of an answer.
    bool peerUntrusted() const { return m_untrusted; }

    enum class Io { Done, WouldBlock, Closed };
    // Writes all of `bytes`; Closed if the peer went away or refused them,
    // WouldBlock if the deadline passed first.
    Io write(const char *bytes, qsizetype size, const Deadline &deadline);
    // Reads what is there, up to `capacity` bytes, into `into`; `*got` says
    // how many. WouldBlock: the deadline passed with no whole record.
    Io read(char *into, qsizetype capacity, qsizetype *got, const Deadline &deadline);
    // Whether decrypted bytes wait to be read.
    bool pending() const;

    TlsSession();
    ~TlsSession();
    TlsSession(const TlsSession &) = delete;
    TlsSession &operator=(const TlsSession &) = delete;

    struct Socket; // the socket and the current call's deadline, for the BIO

private:
    struct Ssl;
    std::unique_ptr<Ssl> m_ssl;
    bool m_untrusted = false;
};

} // namespace keel
