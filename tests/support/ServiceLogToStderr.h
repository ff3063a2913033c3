#pragma once

#include "core/ServiceLog.h"

#include <cstdio>

namespace keel::test {

// Test processes show the services' log lines among the test output.
inline void sendServiceLogToStderr()
{
    ServiceLog::setSink([](ServiceLog::Level, const QString &line) {
        std::fprintf(stderr, "%s\n", qPrintable(line));
    });
}

} // namespace keel::test
