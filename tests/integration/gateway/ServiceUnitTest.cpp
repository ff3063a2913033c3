// The gateway as systemd starts it from packaging/systemd/keel-gateway@.service:
// the unit's ExecStart line, with only the environment its EnvironmentFile=
// lines give, as an unprivileged user. It is ready when it says READY=1 on
// $NOTIFY_SOCKET (Type=notify), serves, and a SIGTERM stops it cleanly
// within the unit's TimeoutStopSec. systemd itself does not run here.

#include "ServiceUnit.h"
#include "GatewayTest.h"
#include "KeelProcess.h"

#include "core/db/ConnectionSettings.h"
#include "core/net/HttpClient.h"
#include "core/net/LoopbackPort.h"

#include <QDir>
#include <QFile>
#include <QHash>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QUrl>

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using keel::test::NotifySocket;

class ServiceUnitTest : public keel::test::GatewayTest {};

TEST_F(ServiceUnitTest, TheGatewayStartsFromItsUnitSaysReadyAndStopsOnSigterm)
{
    const keel::test::ServiceUnit unit = keel::test::readServiceUnit(
        QStringLiteral(KEEL_SOURCE_DIR "/packaging/systemd/keel-gateway@.service"));
    ASSERT_TRUE(unit.execStart.startsWith(QLatin1String("/usr/bin/keel gateway ")));
    ASSERT_EQ(unit.environmentFiles, (QStringList{QStringLiteral("/etc/keel/keel.env"),
                                                  QStringLiteral("/etc/keel/gateway-%i.env")}));

    // /etc/keel as an operator fills it, under a directory of its own.
    QTemporaryDir etc(QStringLiteral("/tmp/keel-unit-XXXXXX"));
    ASSERT_TRUE(etc.isValid());
    ::chmod(QFile::encodeName(etc.path()).constData(), 0755);
    const int port = keel::bindLoopback();
    const auto write = [&](const QString &name, const QByteArray &text) {
        QFile file(etc.filePath(name));
        ASSERT_TRUE(file.open(QIODevice::WriteOnly));
        file.write(text);
    };
    // Over TCP with the login's password in a pgpass file only the service
    // may read, as docs/operations/services.md says to deploy it (the test
    // cluster's socket directory is its owner's alone).
    keel::ConnectionSettings database = m_serviceLogin;
    database.set(QStringLiteral("host"), QStringLiteral("127.0.0.1"));
    const QByteArray password = "unit-" + QByteArray::number(port);
    scalar("ALTER ROLE " + database.value(QStringLiteral("user")).toUtf8() + " PASSWORD '" +
           password + "'");
    write(QStringLiteral("pgpass"),
          "127.0.0.1:*:*:" + database.value(QStringLiteral("user")).toUtf8() + ':' + password +
              '\n');
    const QByteArray pgpass = QFile::encodeName(etc.filePath(QStringLiteral("pgpass")));
    ::chmod(pgpass.constData(), 0600);
    if (::getuid() == 0) {
        ASSERT_EQ(::chown(pgpass.constData(), 65534, 65534), 0);
    }
    write(QStringLiteral("keel.env"),
          "# the database, as the keel_gateway login\nKEEL_DB=" + database.conninfo().toUtf8() +
              "\nPGPASSFILE=" + pgpass + '\n');
    write(QStringLiteral("gateway-main.env"),
          "KEEL_GATEWAY_OPTIONS=--listen 127.0.0.1:" + QByteArray::number(port) + " --threads 2\n");
    QHash<QString, QString> environment;
    for (QString file : unit.environmentFiles)
        ASSERT_TRUE(keel::test::readEnvironmentFile(
            file.replace(QLatin1String("/etc/keel"), etc.path())
                .replace(QLatin1String("%i"), QLatin1String("main")),
            environment))
            << qPrintable(file);
    NotifySocket notify(etc.filePath(QStringLiteral("notify")));
    ASSERT_TRUE(notify.bound());

    QProcessEnvironment processEnvironment;
    for (auto it = environment.cbegin(); it != environment.cend(); ++it)
        processEnvironment.insert(it.key(), it.value());
    processEnvironment.insert(QStringLiteral("PATH"), QStringLiteral("/usr/bin:/bin"));
    processEnvironment.insert(QStringLiteral("NOTIFY_SOCKET"),
                              etc.filePath(QStringLiteral("notify")));
    QStringList command = keel::test::expandExecStart(unit.execStart, environment);
    command[0] = keel::test::keelBinary();
    // User=keel: here, as root, the unprivileged "nobody" stands in for it.
    if (::getuid() == 0)
        command = QStringList{QStringLiteral("--reuid=65534"), QStringLiteral("--regid=65534"),
                              QStringLiteral("--clear-groups"), QStringLiteral("--")} +
                  command;
    QProcess gateway;
    gateway.setProcessEnvironment(processEnvironment);
    gateway.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    gateway.start(::getuid() == 0 ? QStringLiteral("setpriv") : command.takeFirst(), command);
    ASSERT_TRUE(gateway.waitForStarted(10000));

    EXPECT_EQ(notify.next(30000), QByteArray("READY=1"));
    keel::HttpClient client(QStringLiteral("127.0.0.1"), port);
    const keel::HttpReply metrics = client.request("GET", "/metrics");
    EXPECT_EQ(metrics.status, 200);
    EXPECT_TRUE(metrics.body.contains("keel_http_requests_total"))
        << metrics.body.left(200).constData();

    ::kill(pid_t(gateway.processId()), SIGTERM);
    EXPECT_EQ(notify.next(10000), QByteArray("STOPPING=1"));
    ASSERT_TRUE(gateway.waitForFinished(unit.timeoutStopSeconds * 1000));
    EXPECT_EQ(gateway.exitStatus(), QProcess::NormalExit);
    EXPECT_EQ(gateway.exitCode(), 0);
}

// keel worker serves no API, so it serves /metrics on an address of its own
// (--metrics), for the KeelWorkerDown alert and its own counters. keel relay
// takes the same option through the same code.
TEST_F(ServiceUnitTest, TheWorkerServesItsMetricsOnAnAddressOfItsOwn)
{
    QString url;
    auto worker = keel::test::startKeel({QStringLiteral("worker"), QStringLiteral("--db"),
                                         m_serviceLogin.conninfo(), QStringLiteral("--metrics"),
                                         QStringLiteral("127.0.0.1:0")},
                                        QStringLiteral("KEEL_METRICS"), &url);
    ASSERT_FALSE(url.isEmpty());
    const QUrl address(url);
    keel::HttpClient client(address.host(), address.port());
    const keel::HttpReply metrics = client.request("GET", "/metrics");
    EXPECT_EQ(metrics.status, 200);
    EXPECT_TRUE(metrics.body.contains("keel_saga_transitions_total"))
        << metrics.body.left(200).constData();
    EXPECT_EQ(client.request("GET", "/healthz").status, 200);
    EXPECT_EQ(client.request("GET", "/v1/charges").status, 404);
    worker->terminate();
    EXPECT_TRUE(worker->waitForFinished(30000));
    EXPECT_EQ(worker->exitCode(), 0);

    const keel::test::ProcessResult refused = keel::test::runKeel(
        {QStringLiteral("worker"), QStringLiteral("--db"), m_serviceLogin.conninfo(),
         QStringLiteral("--metrics"), QStringLiteral("nowhere")});
    EXPECT_EQ(refused.exitCode, 2);
    EXPECT_TRUE(refused.err.contains(QLatin1String("--metrics"))) << qPrintable(refused.err);
}

} // namespace
