#pragma once

#include "QtPrinters.h"

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace keel::test {

struct ProcessResult {
    int exitCode = -1;
    QString out;
    QString err;
};

// Runs the keel binary built with the tests and waits for it.
ProcessResult
runKeel(const QStringList &arguments,
        const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment(),
        int timeoutMs = 60000);

QString keelBinary();

} // namespace keel::test
