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

struct Error {
    ErrorKind kind = ErrorKind::Failed;
    QString message; // one line: what is wrong and what to do about it
    QString field;   // the input field at fault, when there is one
    QString code;    // a stable machine-readable code ("parameter_missing"), optional
};

inline Error makeError(ErrorKind kind, QString message)
{
    return Error{kind, std::move(message), {}, {}};
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

} // namespace keel
