#include "KeelService.h"

#include "KeelProcess.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QThread>

namespace keel::chaos {

KeelService::KeelService(QString name, QStringList arguments, QString readyKey, QString logPath)
    : m_name(std::move(name)), m_arguments(std::move(arguments)), m_readyKey(std::move(readyKey)),
      m_logPath(std::move(logPath))
{}

KeelService::~KeelService()
{
    kill();
}

bool KeelService::start(int timeoutMs)
{
    kill();
    QFile log(m_logPath);
    const qint64 from = log.exists() ? log.size() : 0;
    m_process = std::make_unique<QProcess>();
    m_process->setStandardOutputFile(m_logPath, QIODevice::Append);
    m_process->setStandardErrorFile(m_logPath, QIODevice::Append);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const auto &[name, value] : m_environment)
        environment.insert(name, value);
    m_process->setProcessEnvironment(environment);
    m_process->start(test::keelBinary(), m_arguments);
    ++m_starts;
    const QByteArray prefix = m_readyKey.toUtf8() + '=';
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < timeoutMs) {
        if (log.open(QIODevice::ReadOnly)) {
            log.seek(from);
            const QList<QByteArray> lines = log.readAll().split('\n');
            log.close();
            for (const QByteArray &line : lines)
                if (line.startsWith(prefix)) {
                    m_readyValue = QString::fromUtf8(line.mid(prefix.size()).trimmed());
                    return true;
                }
        }
        if (m_process->state() == QProcess::NotRunning)
            return false;
        m_process->waitForFinished(50);
    }
    kill();
    return false;
}

void KeelService::kill()
{
    if (!m_process)
        return;
    if (m_process->state() != QProcess::NotRunning) {
        m_process->kill(); // SIGKILL: no clean-up, as a crash
        m_process->waitForFinished(5000);
    }
    m_process.reset();
}

void KeelService::setEnvironment(const QString &name, const QString &value)
{
    m_environment.append({name, value});
}

QByteArray KeelService::commandLine() const
{
    if (!running())
        return {};
    QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(m_process->processId()));
    if (!cmdline.open(QIODevice::ReadOnly))
        return {};
    QByteArray line = cmdline.readAll();
    line.replace('\0', ' ');
    return line;
}

bool KeelService::running() const
{
    return m_process && m_process->state() == QProcess::Running;
}

} // namespace keel::chaos
