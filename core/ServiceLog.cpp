#include "core/ServiceLog.h"

#include <mutex>

namespace keel {
namespace {

struct SinkSlot {
    std::mutex mutex;
    ServiceLog::Sink sink;
};

SinkSlot &slot()
{
    static SinkSlot theSlot;
    return theSlot;
}

void write(ServiceLog::Level level, const QString &line)
{
    SinkSlot &current = slot();
    const std::lock_guard lock(current.mutex);
    if (current.sink)
        current.sink(level, line);
}

} // namespace

ServiceLog::Sink ServiceLog::setSink(Sink sink)
{
    SinkSlot &current = slot();
    const std::lock_guard lock(current.mutex);
    std::swap(current.sink, sink);
    return sink;
}

void ServiceLog::info(const QString &line)
{
    write(Level::Info, line);
}

void ServiceLog::warning(const QString &line)
{
    write(Level::Warning, line);
}

} // namespace keel
