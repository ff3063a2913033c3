#pragma once

#include <QString>

#include <functional>

namespace keel {

// The lines keel's services want an operator to read: a sweep that keeps
// failing, a broker that went away, a request that failed inside keel. Core
// hands them here and never writes to a stream itself; the process running
// core chooses where they go (`keel` writes them to stderr for journald, a
// test collects them). Until a process sets a sink, lines are dropped.
class ServiceLog final {
public:
    ServiceLog() = delete;

    enum class Level { Info, Warning };
    using Sink = std::function<void(Level, const QString &line)>;

    // For the whole process, from any thread; returns the sink it replaces.
    static Sink setSink(Sink sink);

    static void info(const QString &line);
    static void warning(const QString &line);
};

} // namespace keel
