#pragma once

#include <QString>

#include <optional>
#include <utility>
#include <variant>

namespace keel {

// Why an operation failed, coarse enough for the CLI to map to an exit code and
// for the console to decide how to present it.
enum class ErrorKind {
    Usage,       // the caller asked for something malformed
    Connection,  // the database could not be reached or refused the login
    Environment, // a program, directory or permission on this machine is missing
    Schema,      // the database schema does not match what this binary knows
    Failed,      // the operation was attempted and failed
};

// An error's machine-readable code is what behaviour is decided by, never its
// message. Database errors carry their SQLSTATE ("40001"); keel's own codes are
// below, and input errors carry the API's parameter codes ("parameter_missing").
struct Error {
    ErrorKind kind = ErrorKind::Failed;
    QString message; // one line: what is wrong and what to do about it
    QString field;   // the input field at fault, when there is one
    QString code;    // a stable machine-readable code, optional

    bool is(const char *otherCode) const { return code == QLatin1String(otherCode); }
};

namespace ErrorCode {
// SQLSTATEs keel reacts to.
inline constexpr char UniqueViolation[] = "23505";
inline constexpr char CheckViolation[] = "23514";
inline constexpr char ForeignKeyViolation[] = "23503";
inline constexpr char InsufficientPrivilege[] = "42501";
inline constexpr char SerializationFailure[] = "40001";
inline constexpr char DeadlockDetected[] = "40P01";
inline constexpr char DuplicateDatabase[] = "42P04";
// Raised by keel.require_rows(): a guarded statement found other rows than it
// expected, because a concurrent transaction moved them first.
inline constexpr char RowsMoved[] = "KL409";
// Raised by migration 0021's rules: a saga's case is closed, so its money is
// no longer in suspense (a resume is refused); a channel operation on the
// charge is in flight, so no case may open for it yet.
inline constexpr char CaseClosed[] = "KL412";
inline constexpr char ChannelInFlight[] = "KL425";
// Raised by migration 0043's refunds_admit_withheld: the refund asks for more
// than the charge has left once what its channel took back is withheld.
inline constexpr char RefundBeyondWithheld[] = "KL426";
// libpq reports no SQLSTATE when the connection itself is gone; keel uses the
// class 08 code for it.
inline constexpr char ConnectionLost[] = "08006";
// keel's own.
inline constexpr char ChannelUnreachable[] = "keel_channel_unreachable";
inline constexpr char RecordVanished[] = "keel_record_vanished";
// The channel may still undo an approval it reports (a reverse keel sent
// whose fate is unknown): the approval is not believed yet.
inline constexpr char ApprovalMayBeUndone[] = "keel_approval_may_be_undone";
// Rows for a COPY could not be sent, the server having said nothing.
inline constexpr char CopyNotSent[] = "keel_copy_not_sent";
} // namespace ErrorCode

inline Error makeError(ErrorKind kind, QString message)
{
    return Error{kind, std::move(message), {}, {}};
}

inline Error codedError(ErrorKind kind, QString code, QString message)
{
    return Error{kind, std::move(message), {}, std::move(code)};
}

// Bad input in a named field: what the API reports as a 400 naming `field`.
inline Error fieldError(QString field, QString code, QString message)
{
    return Error{ErrorKind::Usage, std::move(message), std::move(field), std::move(code)};
}

// A value or an error. Errors are values in keel: core never shows a dialog or
// prints; callers decide how to present the message.
template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_state(std::move(value)) {}
    Result(Error error) : m_state(std::move(error)) {}

    bool ok() const { return std::holds_alternative<T>(m_state); }
    explicit operator bool() const { return ok(); }

    const T &value() const & { return std::get<T>(m_state); }
    T &value() & { return std::get<T>(m_state); }
    T &&value() && { return std::get<T>(std::move(m_state)); }
    const T &operator*() const & { return value(); }
    T &operator*() & { return value(); }
    T &&operator*() && { return std::move(*this).value(); }
    const T *operator->() const { return &value(); }
    T *operator->() { return &value(); }

    const Error &error() const { return std::get<Error>(m_state); }

private:
    std::variant<T, Error> m_state;
};

// Result<void>: success or an error.
class [[nodiscard]] Status {
public:
    Status() = default;
    Status(Error error) : m_error(std::move(error)) {}

    bool ok() const { return !m_error.has_value(); }
    explicit operator bool() const { return ok(); }
    const Error &error() const { return *m_error; }

private:
    std::optional<Error> m_error;
};

// Whether a result succeeded, without its value.
template <typename T>
Status statusOf(const Result<T> &result)
{
    return result ? Status() : Status(result.error());
}

} // namespace keel
