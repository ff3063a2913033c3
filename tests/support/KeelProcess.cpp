#include "KeelProcess.h"

#include <QElapsedTimer>
#include <QProcess>

#include <gtest/gtest.h>

namespace keel::test {

QString keelBinary()
{
    return QStringLiteral(KEEL_BINARY);
}

ProcessResult runKeel(const QStringList &arguments, const QProcessEnvironment &environment,
                      int timeoutMs)
{
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(keelBinary(), arguments);
    ProcessResult result;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        result.err = QStringLiteral("timed out");
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = QString::fromLocal8Bit(process.readAllStandardOutput());
    result.err = QString::fromLocal8Bit(process.readAllStandardError());
    return result;
}

std::unique_ptr<QProcess> startKeel(const QStringList &arguments, const QString &readyKey,
                                    QString *value, const QProcessEnvironment &environment)
{
    auto process = std::make_unique<QProcess>();
    process->setProcessEnvironment(environment);
    // Nobody reads a pipe for stderr here: a full one would block the process.
    process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    process->start(keelBinary(), arguments);
    const QString prefix = readyKey + u'=';
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < 30000) {
        if (process->canReadLine()) {
            const QString line = QString::fromLocal8Bit(process->readLine()).trimmed();
            if (line.startsWith(prefix)) {
                *value = line.mid(prefix.size());
                return process;
            }
            continue;
        }
        if (process->state() == QProcess::NotRunning)
            break;
        process->waitForReadyRead(100);
    }
    ADD_FAILURE() << "keel " << qPrintable(arguments.value(0)) << " did not print "
                  << qPrintable(prefix);
    return process;
}

} // namespace keel::test
