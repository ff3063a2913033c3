#include "devkit/servers/BrokerCluster.h"

#include "core/net/LoopbackPort.h"
#include "devkit/servers/EmbeddedBroker.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRandomGenerator>
#include <QThread>

namespace keel {
namespace {

const QString ControlProgram = QStringLiteral("/usr/lib/rabbitmq/bin/rabbitmqctl");
constexpr int FormationTimeoutMs = 60000;

QString nodeDirectory(const QString &cluster, int index)
{
    return QDir(cluster).filePath(QStringLiteral("node%1").arg(index + 1));
}

} // namespace

Result<std::unique_ptr<BrokerCluster>> BrokerCluster::start(const QString &directory, int nodes)
{
    std::unique_ptr<BrokerCluster> cluster(new BrokerCluster);
    cluster->m_directory = QDir(directory).absolutePath();
    cluster->m_epmdPort = bindLoopback();
    const quint32 tag = QRandomGenerator::system()->bounded(1000000u);
    for (int i = 0; i < nodes; ++i)
        cluster->m_names.append(QStringLiteral("keelc%1n%2@localhost").arg(tag).arg(i + 1));
    QByteArray cookie;
    for (int i = 0; i < 20; ++i)
        cookie.append(char('A' + QRandomGenerator::system()->bounded(26)));

    // One at a time: a blank node that finds no peer forms a cluster of its
    // own, so the first must be up before the others look for it.
    for (int i = 0; i < nodes; ++i) {
        EmbeddedBroker::Membership membership{cluster->m_names[i], cluster->m_epmdPort, cookie,
                                              i == 0 ? QStringList() : cluster->m_names.first(1)};
        auto node = EmbeddedBroker::startMember(nodeDirectory(directory, i), membership);
        if (!node)
            return node.error();
        cluster->m_nodes.push_back(std::move(node).value());
    }
    QElapsedTimer timer;
    timer.start();
    Result<int> running = 0;
    while (timer.elapsed() < FormationTimeoutMs) {
        running = cluster->runningNodes(0);
        if (running && *running == nodes)
            return cluster;
        QThread::msleep(500);
    }
    return makeError(
        ErrorKind::Environment,
        QStringLiteral("the RabbitMQ cluster in %1 did not form: %2")
            .arg(directory, running
                                ? QStringLiteral("%1 of %2 nodes running").arg(*running).arg(nodes)
                                : running.error().message));
}

BrokerCluster::~BrokerCluster()
{
    for (auto &node : m_nodes)
        node->beginStop();
    m_nodes.clear();
    // The nodes are gone; the epmd they shared goes with them.
    EmbeddedBroker::stopEpmdOn(m_epmdPort);
}

QList<AmqpAddress> BrokerCluster::addresses() const
{
    QList<AmqpAddress> all;
    for (const auto &node : m_nodes)
        all.append(node->address());
    return all;
}

Result<int> BrokerCluster::runningNodes(int index) const
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("HOME"), nodeDirectory(m_directory, index));
    environment.insert(QStringLiteral("ERL_EPMD_PORT"), QString::number(m_epmdPort));
    QProcess control;
    control.setProcessEnvironment(environment);
    control.start(ControlProgram,
                  {QStringLiteral("-n"), m_names.at(index), QStringLiteral("cluster_status"),
                   QStringLiteral("--formatter"), QStringLiteral("json")});
    if (!control.waitForFinished(30000) || control.exitCode() != 0)
        return makeError(
            ErrorKind::Environment,
            QStringLiteral("rabbitmqctl cluster_status: %1")
                .arg(QString::fromLocal8Bit(control.readAllStandardError()).trimmed()));
    const QJsonObject status = QJsonDocument::fromJson(control.readAllStandardOutput()).object();
    return int(status.value(QStringLiteral("running_nodes")).toArray().size());
}

} // namespace keel
