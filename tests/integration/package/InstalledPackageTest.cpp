// keel as a person installs it: the .deb `cpack` makes from this build tree,
// installed with apt into a fresh Debian 12 that debootstrap makes, its
// dependencies from Debian's archive. The gateway, the worker and the relay
// then start from the units the package put in /lib/systemd/system, inside
// that root, as the user its postinst made, with only the environment the
// units' files give: the gateway takes a payment as the keel_gateway login
// and the relay publishes its events to RabbitMQ. systemd itself does not
// run here, so the test plays its part: chroot, User=, EnvironmentFile=,
// NOTIFY_SOCKET, SIGTERM.

#include "GatewayTest.h"
#include "ServiceUnit.h"
#include "TestBroker.h"
#include "TestConsumer.h"
#include "WaitUntil.h"

#include "core/db/ConnectionSettings.h"
#include "core/net/HttpClient.h"
#include "core/net/LoopbackPort.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <tuple>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using keel::test::NotifySocket;

// A command's exit code and everything it printed.
struct Ran {
    int exitCode = -1;
    QByteArray output;
};

// Runs `program` in a process group of its own: one that overruns is told
// to stop (SIGTERM, which lets debootstrap undo its mounts) with all it
// started, and killed only if it does not. Commands run inside the root
// get an environment of their own, not this process's.
Ran run(const QString &program, const QStringList &arguments, int timeoutMs,
        bool insideRoot = false)
{
    QProcess process;
    QProcessEnvironment environment =
        insideRoot ? QProcessEnvironment() : QProcessEnvironment::systemEnvironment();
    if (insideRoot) {
        environment.insert(QStringLiteral("PATH"), QStringLiteral("/usr/sbin:/usr/bin:/sbin:/bin"));
        environment.insert(QStringLiteral("HOME"), QStringLiteral("/root"));
    }
    environment.insert(QStringLiteral("DEBIAN_FRONTEND"), QStringLiteral("noninteractive"));
    environment.insert(QStringLiteral("LC_ALL"), QStringLiteral("C"));
    process.setProcessEnvironment(environment);
    process.setProcessChannelMode(QProcess::MergedChannels);
    // Its own group, ended with this test should the test die first.
    process.setChildProcessModifier([] {
        ::setsid();
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    });
    process.start(program, arguments);
    if (!process.waitForStarted(10000))
        return {-1, process.errorString().toUtf8()};
    if (!process.waitForFinished(timeoutMs)) {
        const pid_t group = pid_t(process.processId());
        if (group > 0) { // kill(-0) would be this test's own group
            ::kill(-group, SIGTERM);
            process.waitForFinished(30000);
            ::kill(-group, SIGKILL); // whatever of the group outlived its leader
        }
        process.waitForFinished(10000);
        return {-1, "timed out: " + process.readAll().right(4000)};
    }
    const int code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    return {code, process.readAll()};
}

// The mount points inside `prefix` (a directory path ending in '/').
QStringList mountsInside(const QString &prefix)
{
    QStringList inside;
    QFile mounts(QStringLiteral("/proc/self/mountinfo"));
    if (mounts.open(QIODevice::ReadOnly))
        for (const QByteArray &line : mounts.readAll().split('\n')) {
            const QList<QByteArray> fields = line.split(' ');
            if (fields.size() > 4 && QString::fromUtf8(fields[4]).startsWith(prefix))
                inside << QString::fromUtf8(fields[4]);
        }
    return inside;
}

// Removes a root debootstrap made: first whatever is still mounted inside
// it (the machine's /proc, /sys, /dev/pts or /dev/shm, bound there by a
// debootstrap that did not finish), then the tree, never crossing into
// another file system.
bool removeRoot(const QString &directory)
{
    if (!QFileInfo::exists(directory))
        return true;
    // Only ever a directory this test made.
    const QString canonical = QDir(directory).canonicalPath();
    if (!canonical.startsWith(QLatin1String("/tmp/keel-deb-")))
        return false;
    QStringList inside = mountsInside(canonical + u'/');
    // Deepest first.
    std::sort(inside.begin(), inside.end(),
              [](const QString &a, const QString &b) { return a.size() > b.size(); });
    for (const QString &mountPoint : std::as_const(inside))
        (void)run(QStringLiteral("umount"), {QStringLiteral("-l"), mountPoint}, 30000);
    if (!mountsInside(canonical + u'/').isEmpty())
        return false;
    return run(QStringLiteral("rm"),
               {QStringLiteral("-rf"), QStringLiteral("--one-file-system"), canonical}, 300000)
               .exitCode == 0;
}

// The uid and gid /etc/passwd in `root` gives `user`, or {-1, -1}.
std::pair<int, int> accountIn(const QString &root, const QString &user)
{
    QFile passwd(root + QStringLiteral("/etc/passwd"));
    if (!passwd.open(QIODevice::ReadOnly))
        return {-1, -1};
    for (const QByteArray &line : passwd.readAll().split('\n')) {
        const QList<QByteArray> fields = line.split(':');
        if (fields.size() >= 4 && fields[0] == user.toUtf8())
            return {fields[2].toInt(), fields[3].toInt()};
    }
    return {-1, -1};
}

class InstalledPackageTest : public keel::test::GatewayTest {
protected:
    // Writes `text` to /etc/keel/`name` in the root, as root:keel with `mode`.
    void writeConfig(const QString &name, const QByteArray &text, int gid, mode_t mode)
    {
        const QString path = m_root + QStringLiteral("/etc/keel/") + name;
        QFile file(path);
        ASSERT_TRUE(file.open(QIODevice::WriteOnly)) << qPrintable(path);
        file.write(text);
        file.close();
        const QByteArray native = QFile::encodeName(path);
        ASSERT_EQ(::chown(native.constData(), 0, gid_t(gid)), 0);
        ASSERT_EQ(::chmod(native.constData(), mode), 0);
    }

    // One installed service, started as systemd would start its unit.
    struct Service {
        keel::test::ServiceUnit unit;
        std::unique_ptr<NotifySocket> notify;
        std::unique_ptr<QProcess> process;
    };

    // Starts the unit `name` (an instance of it when `instance` is given)
    // inside the root, as its User= with only its files' environment, and
    // waits for READY=1.
    void start(Service &service, const QString &name, const QString &instance = {})
    {
        service.unit =
            keel::test::readServiceUnit(m_root + QStringLiteral("/lib/systemd/system/") + name);
        ASSERT_EQ(service.unit.user, QStringLiteral("keel")) << qPrintable(name);
        QHash<QString, QString> environment;
        for (QString file : service.unit.environmentFiles)
            ASSERT_TRUE(keel::test::readEnvironmentFile(
                m_root + file.replace(QLatin1String("%i"), instance), environment))
                << qPrintable(file);
        const QString notifyPath = QStringLiteral("/run/notify-") + name;
        service.notify = std::make_unique<NotifySocket>(m_root + notifyPath);
        ASSERT_TRUE(service.notify->bound());
        QProcessEnvironment processEnvironment;
        for (auto it = environment.cbegin(); it != environment.cend(); ++it)
            processEnvironment.insert(it.key(), it.value());
        processEnvironment.insert(QStringLiteral("PATH"), QStringLiteral("/usr/bin:/bin"));
        processEnvironment.insert(QStringLiteral("NOTIFY_SOCKET"), notifyPath);
        service.process = std::make_unique<QProcess>();
        service.process->setProcessEnvironment(processEnvironment);
        service.process->setProcessChannelMode(QProcess::ForwardedChannels);
        // chroot execs the unit's command itself: its pid is the service's.
        service.process->start(
            QStringLiteral("chroot"),
            QStringList{QStringLiteral("--userspec=%1:%2").arg(m_uid).arg(m_gid),
                        QStringLiteral("--groups=%1").arg(m_gid), m_root} +
                keel::test::expandExecStart(service.unit.execStart, environment));
        ASSERT_TRUE(service.process->waitForStarted(10000)) << qPrintable(name);
        ASSERT_EQ(service.notify->next(60000), QByteArray("READY=1")) << qPrintable(name);
    }

    // SIGTERM, as systemctl stop sends it: STOPPING=1, then exit 0 in time.
    void stop(Service &service)
    {
        ::kill(pid_t(service.process->processId()), SIGTERM);
        EXPECT_EQ(service.notify->next(10000), QByteArray("STOPPING=1"));
        ASSERT_TRUE(service.process->waitForFinished(service.unit.timeoutStopSeconds * 1000));
        EXPECT_EQ(service.process->exitStatus(), QProcess::NormalExit);
        EXPECT_EQ(service.process->exitCode(), 0);
    }

    void TearDown() override
    {
        if (m_work.isValid()) {
            EXPECT_TRUE(removeRoot(m_work.path())) << qPrintable(m_work.path());
        }
        GatewayTest::TearDown();
    }

    // The package, from this build tree (stripped: the debug info is not
    // what is being tested, and it would triple the download into the root).
    void makePackage()
    {
        const QString packages = m_work.filePath(QStringLiteral("package"));
        const Ran packed =
            run(QStringLiteral("cpack"),
                {QStringLiteral("--config"), QStringLiteral(KEEL_BUILD_DIR "/CPackConfig.cmake"),
                 QStringLiteral("-B"), packages, QStringLiteral("-D"),
                 QStringLiteral("CPACK_STRIP_FILES=ON")},
                300000);
        ASSERT_EQ(packed.exitCode, 0) << packed.output.constData();
        const QStringList debs =
            QDir(packages).entryList({QStringLiteral("keel_*.deb")}, QDir::Files);
        ASSERT_EQ(debs.size(), 1) << packed.output.constData();
        m_package = QDir(packages).filePath(debs.first());
    }

    // A fresh minimal Debian 12, ready for apt.
    void makeRoot()
    {
        const QString mirror = qEnvironmentVariable("KEEL_DEBIAN_MIRROR",
                                                    QStringLiteral("http://deb.debian.org/debian"));
        // Once more on failure: a download that broke off is the archive's
        // weather, not keel's; a second failure is reported. The steps' limits
        // (300 + 2 x 700 + 300 + 900 s) leave room in ctest's 3000 s, so a step
        // that hangs is stopped here, where its mounts are undone.
        Ran bootstrapped;
        for (int attempt = 0; attempt < 2 && bootstrapped.exitCode != 0; ++attempt) {
            ASSERT_TRUE(removeRoot(m_root));
            bootstrapped = run(
                QStringLiteral("debootstrap"),
                {QStringLiteral("--variant=minbase"), QStringLiteral("bookworm"), m_root, mirror},
                700000);
        }
        ASSERT_EQ(bootstrapped.exitCode, 0) << bootstrapped.output.right(4000).constData();

        // As in a container image: packages do not start services while they
        // are installed, and names resolve as on the machine outside.
        {
            QFile policy(m_root + QStringLiteral("/usr/sbin/policy-rc.d"));
            ASSERT_TRUE(policy.open(QIODevice::WriteOnly));
            policy.write("#!/bin/sh\nexit 101\n");
            policy.close();
            ASSERT_TRUE(policy.setPermissions(policy.permissions() | QFile::ExeOwner));
            QFile::remove(m_root + QStringLiteral("/etc/resolv.conf"));
            ASSERT_TRUE(QFile::copy(QStringLiteral("/etc/resolv.conf"),
                                    m_root + QStringLiteral("/etc/resolv.conf")));
            ASSERT_TRUE(QFile::copy(m_package, m_root + QStringLiteral("/tmp/keel.deb")));
        }
    }

    void installPackage()
    {
        const Ran updated = run(QStringLiteral("chroot"),
                                {m_root, QStringLiteral("apt-get"), QStringLiteral("-o"),
                                 QStringLiteral("Acquire::Retries=3"), QStringLiteral("update")},
                                300000, true);
        ASSERT_EQ(updated.exitCode, 0) << updated.output.right(4000).constData();
        // No recommends: what keel Depends on must be enough.
        const Ran installed = run(QStringLiteral("chroot"),
                                  {m_root, QStringLiteral("apt-get"), QStringLiteral("-o"),
                                   QStringLiteral("Acquire::Retries=3"), QStringLiteral("install"),
                                   QStringLiteral("-y"), QStringLiteral("--no-install-recommends"),
                                   QStringLiteral("/tmp/keel.deb")},
                                  900000, true);
        ASSERT_EQ(installed.exitCode, 0) << installed.output.right(4000).constData();
    }

    // What the package and its postinst made.
    void checkWhatPostinstMade()
    {
        for (const char *unit :
             {"keel-gateway@.service", "keel-worker.service", "keel-relay.service"})
            EXPECT_TRUE(QFile::exists(m_root + QStringLiteral("/lib/systemd/system/") +
                                      QLatin1String(unit)))
                << unit;
        std::tie(m_uid, m_gid) = accountIn(m_root, QStringLiteral("keel"));
        ASSERT_GT(m_uid, 0) << "postinst made no user keel";
        struct stat etcKeel {};
        ASSERT_EQ(
            ::stat(QFile::encodeName(m_root + QStringLiteral("/etc/keel")).constData(), &etcKeel),
            0);
        EXPECT_EQ(etcKeel.st_mode & 07777, 0750u);
        EXPECT_EQ(etcKeel.st_uid, 0u);
        EXPECT_EQ(etcKeel.st_gid, gid_t(m_gid));
    }

    // /etc/keel as docs/operations/services.md says to fill it: the login's
    // password in a pgpass file only the services read, the broker's in a
    // file of the keel group's.
    void configure()
    {
        m_port = keel::bindLoopback();
        keel::ConnectionSettings database = m_serviceLogin;
        database.set(QStringLiteral("host"), QStringLiteral("127.0.0.1"));
        const QByteArray password =
            QByteArray::number(QRandomGenerator::system()->generate64(), 36) +
            QByteArray::number(QRandomGenerator::system()->generate64(), 36);
        scalar("ALTER ROLE " + database.value(QStringLiteral("user")).toUtf8() + " PASSWORD '" +
               password + "'");
        writeConfig(QStringLiteral("pgpass"),
                    "127.0.0.1:*:*:" + database.value(QStringLiteral("user")).toUtf8() + ':' +
                        password + '\n',
                    m_gid, 0600);
        ASSERT_EQ(
            ::chown(QFile::encodeName(m_root + QStringLiteral("/etc/keel/pgpass")).constData(),
                    uid_t(m_uid), gid_t(m_gid)),
            0);
        writeConfig(QStringLiteral("keel.env"),
                    "KEEL_DB=" + database.conninfo().toUtf8() + "\nPGPASSFILE=/etc/keel/pgpass\n",
                    m_gid, 0640);
        writeConfig(QStringLiteral("gateway-main.env"),
                    "KEEL_GATEWAY_OPTIONS=--listen 127.0.0.1:" + QByteArray::number(m_port) +
                        " --threads 2\n",
                    m_gid, 0640);
        writeConfig(QStringLiteral("worker.env"), "KEEL_WORKER_OPTIONS=--poll 200\n", m_gid, 0640);
        // An exchange of this test's own on the run's shared broker.
        m_exchange = "keel.deb." + QByteArray::number(m_port);
        writeConfig(QStringLiteral("relay.env"),
                    "KEEL_AMQP=" + keel::test::testBroker().url().toUtf8() +
                        "\nKEEL_RELAY_OPTIONS=--poll 200 --exchange " + m_exchange + '\n',
                    m_gid, 0640);
    }

    // Removed by removeRoot(), which will not follow a mount out of it.
    QTemporaryDir m_work = [] {
        QTemporaryDir work(QStringLiteral("/tmp/keel-deb-XXXXXX"));
        work.setAutoRemove(false);
        return work;
    }();
    QString m_root;
    QString m_package;     // the .deb cpack made
    int m_port = 0;        // the gateway's
    QByteArray m_exchange; // the relay's, this test's own
    int m_uid = -1;
    int m_gid = -1;
};

TEST_F(InstalledPackageTest, TheDebInstallsIntoAFreshDebianAndItsUnitsTakeAPaymentAndRelayIt)
{
    ASSERT_EQ(::getuid(), 0u) << "debootstrap and chroot need root";
    ASSERT_TRUE(m_work.isValid());
    m_root = m_work.filePath(QStringLiteral("root"));
    makePackage();
    ASSERT_FALSE(HasFatalFailure());
    makeRoot();
    ASSERT_FALSE(HasFatalFailure());
    installPackage();
    ASSERT_FALSE(HasFatalFailure());
    checkWhatPostinstMade();
    ASSERT_FALSE(HasFatalFailure());
    configure();
    ASSERT_FALSE(HasFatalFailure());

    Service gateway;
    start(gateway, QStringLiteral("keel-gateway@.service"), QStringLiteral("main"));
    ASSERT_FALSE(HasFatalFailure());
    keel::HttpClient client(QStringLiteral("127.0.0.1"), m_port);
    const keel::HttpReply charged =
        post("/v1/charges", "amount=2500&currency=eur&source=tok_visa", "deb-charge", {}, &client);
    EXPECT_EQ(charged.status, 200) << charged.body.constData();
    EXPECT_EQ(keel::test::jsonOf(charged).value(QStringLiteral("status")).toString(),
              QStringLiteral("succeeded"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges WHERE amount_captured = 2500"),
              QStringLiteral("1"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.sim_channel_operations"), QStringLiteral("1"));
    EXPECT_EQ(client.request("GET", "/metrics").status, 200);

    // The payment's events leave through the installed relay, confirmed by
    // the broker, while the installed worker runs beside it.
    const int events =
        scalar("SELECT count(*) FROM keel.outbox WHERE published_at IS NULL").toInt();
    ASSERT_GT(events, 0);
    keel::test::Consumer consumer(keel::test::testBroker(), QString::fromLatin1(m_exchange),
                                  QStringLiteral("#"));
    Service worker;
    start(worker, QStringLiteral("keel-worker.service"));
    Service relay;
    start(relay, QStringLiteral("keel-relay.service"));
    ASSERT_FALSE(HasFatalFailure());
    EXPECT_TRUE(keel::test::waitUntil(
        [&] {
            return scalar("SELECT count(*) FROM keel.outbox WHERE published_at IS NULL") ==
                   QLatin1String("0");
        },
        30000))
        << qPrintable(scalar("SELECT count(*) FROM keel.outbox WHERE published_at IS NULL"));
    const auto received = consumer.receive(events, 10000);
    ASSERT_EQ(received.size(), events);
    EXPECT_EQ(received.first().body.value(QStringLiteral("type")).toString().left(7),
              QStringLiteral("charge."))
        << QJsonDocument(received.first().body).toJson().constData();

    stop(relay);
    stop(worker);
    stop(gateway);
}

} // namespace
