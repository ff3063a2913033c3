#pragma once

#include "QtPrinters.h"

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <memory>

class QProcess;

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

// Starts a long-running keel command and waits (up to 30 s) for the line
// "<readyKey>=<value>" it prints when ready; `value` stays empty, and the
// test fails, if it never comes.
std::unique_ptr<QProcess>
startKeel(const QStringList &arguments, const QString &readyKey, QString *value,
          const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment());

} // namespace keel::test
