// `keel doctor --env FILE...` reads a service's configuration as systemd
// gives it (packaging/systemd/examples) and says what is right and what to fix.

#include "KeelProcess.h"
#include "MigratedDatabaseTest.h"
#include "TestBroker.h"
#include "TestPki.h"
#include "WaitUntil.h"

#include "core/net/HttpClient.h"
#include "core/net/LoopbackPort.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <gtest/gtest.h>

using keel::test::runKeel;

namespace {

class DoctorCommandTest : public keel::test::MigratedDatabaseTest {
protected:
    void SetUp() override
    {
        MigratedDatabaseTest::SetUp();
        ASSERT_TRUE(m_etc.isValid());
    }

    // A file under the test's /etc/keel with `mode`; its path.
    QString file(const QString &name, const QByteArray &text, QFile::Permissions mode)
    {
        QFile out(m_etc.filePath(name));
        EXPECT_TRUE(out.open(QIODevice::WriteOnly));
        out.write(text);
        out.close();
        EXPECT_TRUE(out.setPermissions(mode));
        return out.fileName();
    }

    keel::test::ProcessResult doctor(const QByteArray &environment)
    {
        return runKeel(
            {QStringLiteral("doctor"), QStringLiteral("--env"),
             file(QStringLiteral("keel.env"), environment, QFile::ReadOwner | QFile::WriteOwner)});
    }

    static constexpr QFile::Permissions OwnerOnly = QFile::ReadOwner | QFile::WriteOwner;
    static constexpr QFile::Permissions Everyone =
        QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther;
    QTemporaryDir m_etc;
};

TEST_F(DoctorCommandTest, AConfigurationAsDeployedPassesEveryCheck)
{
    const QString key = file(QStringLiteral("gateway.key"), "a key", OwnerOnly);
    const QString certificate = file(QStringLiteral("gateway.crt"), "a certificate", Everyone);
    const keel::test::ProcessResult result =
        doctor("KEEL_DB=" + loginAs(QStringLiteral("keel_gateway")).conninfo().toUtf8() +
               "\nKEEL_GATEWAY_OPTIONS=--listen 0.0.0.0:8080 --tls-key " + key.toUtf8() +
               " --tls-cert " + certificate.toUtf8() + '\n');
    EXPECT_EQ(result.exitCode, 0) << qPrintable(result.out + result.err);
    for (const char *line : {"ok   database:", "ok   login: t_keel_gateway", "ok   schema: current",
                             "ok   grants:", "ok   --tls-key", "ok   --tls-cert"})
        EXPECT_TRUE(result.out.contains(QLatin1String(line))) << line << qPrintable(result.out);
    EXPECT_FALSE(result.out.contains(QLatin1String("FIX"))) << qPrintable(result.out);
}

TEST_F(DoctorCommandTest, EachMistakeIsNamedWithWhatToDo)
{
    const QString key = file(QStringLiteral("merchant.key"), "a key", Everyone);
    const QString pgpass = file(QStringLiteral("pgpass"), "*:*:*:*:secret\n", Everyone);
    const keel::test::ProcessResult result =
        doctor("KEEL_DB=" + settings().conninfo().toUtf8() + "\nPGPASSFILE=" + pgpass.toUtf8() +
               "\nKEEL_WORKER_OPTIONS=--wechatpay-merchant-key " + key.toUtf8() +
               " --wechatpay-certificate " + m_etc.filePath(QStringLiteral("absent.pem")).toUtf8() +
               "\nKEEL_AMQP=amqp://keel:hunter2@127.0.0.1:1/\n");
    EXPECT_EQ(result.exitCode, 1);
    for (const char *line :
         {"is a superuser", "FIX  PGPASSFILE", "FIX  --wechatpay-merchant-key", "chmod 600",
          "FIX  --wechatpay-certificate", "no such file", "FIX  broker:"})
        EXPECT_TRUE(result.out.contains(QLatin1String(line))) << line << qPrintable(result.out);
    EXPECT_FALSE(result.out.contains(QLatin1String("hunter2"))) << qPrintable(result.out);
}

TEST_F(DoctorCommandTest, EachNodeOfABrokerClusterIsCheckedOnItsOwn)
{
    keel::AmqpAddress live = keel::test::testBroker();
    keel::AmqpAddress down = live;
    down.port = 1; // nothing listens there
    down.password = QStringLiteral("hunter2");
    // As systemd reads it: the nodes in quotes, separated by spaces.
    const keel::test::ProcessResult result =
        doctor("KEEL_DB=" + loginAs(QStringLiteral("keel_gateway")).conninfo().toUtf8() +
               "\nKEEL_AMQP=\"" + live.url().toUtf8() + ' ' + down.url().toUtf8() + "\"\n");
    EXPECT_EQ(result.exitCode, 1) << qPrintable(result.out + result.err);
    EXPECT_TRUE(result.out.contains(QStringLiteral("ok   broker: %1").arg(live.redacted())))
        << qPrintable(result.out);
    EXPECT_TRUE(result.out.contains(QLatin1String("FIX  broker: RabbitMQ at")) &&
                result.out.contains(QLatin1String("127.0.0.1:1")))
        << qPrintable(result.out);
    EXPECT_FALSE(result.out.contains(QLatin1String("hunter2"))) << qPrintable(result.out);
}

TEST_F(DoctorCommandTest, ALoginOfAnotherRoleIsNotAService)
{
    const keel::test::ProcessResult result =
        doctor("KEEL_DB=" + loginAs(QStringLiteral("keel_auditor")).conninfo().toUtf8() + '\n');
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_TRUE(result.out.contains(QLatin1String("is not a member of keel_gateway")))
        << qPrintable(result.out);
    const keel::test::ProcessResult unset = doctor("# nothing\n");
    EXPECT_EQ(unset.exitCode, 1);
    EXPECT_TRUE(unset.out.contains(QLatin1String("KEEL_DB is not set"))) << qPrintable(unset.out);
}

// The hosts the services will call: the channel, trusted through
// --channel-ca-file, and where merchants' notifications go, through
// --ca-file; each reached with its certificate verified, one look per host
// however many merchants share it. Without the authority, or where nothing
// listens, each is named with what to do.
TEST_F(DoctorCommandTest, EachHostTheServicesCallIsReachedAndItsCertificateVerified)
{
    const keel::test::TestPki pki;
    ASSERT_TRUE(pki.ok());
    const int port = keel::bindLoopback();
    QProcess server;
    server.start(QStringLiteral("openssl"),
                 {QStringLiteral("s_server"), QStringLiteral("-accept"),
                  QStringLiteral("127.0.0.1:%1").arg(port), QStringLiteral("-cert"),
                  pki.serverCertificate(), QStringLiteral("-key"), pki.serverKey(),
                  QStringLiteral("-www"), QStringLiteral("-quiet")});
    ASSERT_TRUE(server.waitForStarted(10000));
    ASSERT_TRUE(keel::test::waitUntil([&] {
        QString why;
        return keel::HttpClient(QStringLiteral("127.0.0.1"), port, 1000).reach(&why) ==
               keel::HttpClient::Reach::Reached;
    }));
    const QByteArray serving = "https://localhost:" + QByteArray::number(port);
    const QByteArray nobody = "https://localhost:" + QByteArray::number(keel::bindLoopback());
    exec("INSERT INTO keel.merchants (name, api_key_hash, notify_url) VALUES "
         "('Tea House', sha256('a'), '" +
         serving + "/notify'), ('Noodle Bar', sha256('b'), '" + serving +
         "/hooks?shop=2'), ('Gone', sha256('c'), '" + nobody + "/notify')");
    const QByteArray database =
        "KEEL_DB=" + loginAs(QStringLiteral("keel_gateway")).conninfo().toUtf8() + '\n';
    const QByteArray ca = pki.caCertificate().toUtf8();

    const keel::test::ProcessResult trusted =
        doctor(database + "KEEL_WORKER_OPTIONS=--channel " + serving + " --channel-ca-file " + ca +
               " --ca-file " + ca + '\n');
    EXPECT_EQ(trusted.exitCode, 1) << qPrintable(trusted.out + trusted.err);
    const QString verified = QStringLiteral(": reached, its certificate verified");
    for (const QString &line :
         QStringList{QStringLiteral("ok   --channel %1").arg(QLatin1String(serving)) + verified,
                     QStringLiteral("ok   notify_url %1").arg(QLatin1String(serving)) + verified,
                     QStringLiteral("FIX  notify_url %1").arg(QLatin1String(nobody))})
        EXPECT_TRUE(trusted.out.contains(line)) << qPrintable(line) << '\n'
                                                << qPrintable(trusted.out);
    EXPECT_EQ(trusted.out.count(QStringLiteral("notify_url ") + QLatin1String(serving)), 1)
        << qPrintable(trusted.out);
    EXPECT_TRUE(trusted.out.contains(QLatin1String("check the address")))
        << qPrintable(trusted.out);

    const keel::test::ProcessResult untrusted =
        doctor(database + "KEEL_WORKER_OPTIONS=--channel " + serving +
               "\nKEEL_GATEWAY_OPTIONS=--channel wechatpay --wechatpay-api " + nobody + '\n');
    EXPECT_EQ(untrusted.exitCode, 1);
    for (const QString &line :
         QStringList{QStringLiteral("FIX  --channel %1").arg(QLatin1String(serving)),
                     QStringLiteral("FIX  notify_url %1").arg(QLatin1String(serving)),
                     QStringLiteral("FIX  --channel %1").arg(QLatin1String(nobody)),
                     QStringLiteral("name that authority's PEM file with --channel-ca-file"),
                     QStringLiteral("name that authority's PEM file with --ca-file")})
        EXPECT_TRUE(untrusted.out.contains(line)) << qPrintable(line) << '\n'
                                                  << qPrintable(untrusted.out);
    server.kill();
    server.waitForFinished(5000);
}

} // namespace
