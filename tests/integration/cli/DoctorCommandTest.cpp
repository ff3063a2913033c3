// `keel doctor --env FILE...` reads a service's configuration as systemd
// gives it (packaging/systemd/examples) and says what is right and what to fix.

#include "KeelProcess.h"
#include "MigratedDatabaseTest.h"
#include "TestBroker.h"

#include <QFile>
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

} // namespace
