#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <memory>
#include <utility>

class QProcess;

namespace keel::chaos {

// One keel process the chaos kills and starts again: same command line, same
// port, its output appended to its own log file (which the secrets check reads).
class KeelService final {
public:
    KeelService(QString name, QStringList arguments, QString readyKey, QString logPath);
    ~KeelService();

    // Starts it and waits for its ready line; false if it exits or is not
    // ready in time (the database may be down: try again later).
    bool start(int timeoutMs = 15000);
    void kill();
    bool running() const;
    // Set in the environment of every start (a password: never on the
    // command line, where any local user reads it).
    void setEnvironment(const QString &name, const QString &value);
    // The running process's command line as the system shows it to anyone.
    QByteArray commandLine() const;

    const QString &name() const { return m_name; }
    QString readyValue() const { return m_readyValue; }
    int starts() const { return m_starts; }

private:
    QString m_name;
    QStringList m_arguments;
    QString m_readyKey;
    QString m_logPath;
    QString m_readyValue;
    QList<std::pair<QString, QString>> m_environment;
    int m_starts = 0;
    std::unique_ptr<QProcess> m_process;
};

} // namespace keel::chaos
