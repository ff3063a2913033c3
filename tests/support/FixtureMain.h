#pragma once

// What the ctest fixture programs (keel-test-cluster, keel-test-broker)
// share: "PROGRAM start|stop STATEFILE", errors as one line on stderr.

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <cstdio>
#include <functional>

namespace keel::test {

inline int fixtureFailure(const char *program, const QString &message)
{
    std::fprintf(stderr, "%s: %s\n", program, qPrintable(message));
    return 1;
}

inline int runFixture(int argc, char **argv, const char *program,
                      const std::function<int(const QString &)> &start,
                      const std::function<int(const QString &)> &stop)
{
    QCoreApplication app(argc, argv);
    const QStringList arguments = QCoreApplication::arguments();
    const QString usage =
        QStringLiteral("usage: %1 start|stop STATEFILE").arg(QLatin1String(program));
    if (arguments.size() != 3)
        return fixtureFailure(program, usage);
    if (arguments.at(1) == QLatin1String("start"))
        return start(arguments.at(2));
    if (arguments.at(1) == QLatin1String("stop"))
        return stop(arguments.at(2));
    return fixtureFailure(program, usage);
}

} // namespace keel::test
