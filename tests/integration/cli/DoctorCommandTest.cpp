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

    // `more`: further EnvironmentFiles, given after keel.env as a unit lists them.
    keel::test::ProcessResult doctor(const QByteArray &environment,
                                     const QList<QByteArray> &more = {})
    {
        QStringList arguments{
            QStringLiteral("doctor"), QStringLiteral("--env"),
            file(QStringLiteral("keel.env"), environment, QFile::ReadOwner | QFile::WriteOwner)};
        for (qsizetype i = 0; i < more.size(); ++i)
            arguments << QStringLiteral("--env")
                      << file(QStringLiteral("service-%1.env").arg(i), more[i], OwnerOnly);
        return runKeel(arguments);
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

// An https server on loopback with a certificate for "localhost" from a CA
// of its own: openssl s_server, as a channel or a merchant's host would be.
class TlsPeer {
public:
    TlsPeer() : m_port(keel::bindLoopback())
    {
        m_server.start(QStringLiteral("openssl"),
                       {QStringLiteral("s_server"), QStringLiteral("-accept"),
                        QStringLiteral("127.0.0.1:%1").arg(m_port), QStringLiteral("-cert"),
                        m_pki.serverCertificate(), QStringLiteral("-key"), m_pki.serverKey(),
                        QStringLiteral("-www"), QStringLiteral("-quiet")});
    }
    ~TlsPeer()
    {
        m_server.kill();
        m_server.waitForFinished(5000);
    }
    bool serving()
    {
        return m_pki.ok() && m_server.waitForStarted(10000) && keel::test::waitUntil([&] {
                   QString why;
                   return keel::HttpClient(QStringLiteral("127.0.0.1"), m_port, 1000).reach(&why) ==
                          keel::HttpClient::Reach::Reached;
               });
    }
    QByteArray url() const { return "https://localhost:" + QByteArray::number(m_port); }
    QByteArray ca() const { return m_pki.caCertificate().toUtf8(); }

private:
    keel::test::TestPki m_pki;
    int m_port;
    QProcess m_server;
};

// The hosts the services will call, each with its own service's trust: the
// channel through its --channel-ca-file, merchants' notify hosts through
// the worker's --ca-file (one look per host, active merchants only, no
// password or token printed). Each named with its fix when its authority is
// not the one given, when nothing listens, when no TLS answers, and when a
// merchant's URL has no host.
TEST_F(DoctorCommandTest, EachHostTheServicesCallIsReachedWithItsOwnServicesTrust)
{
    TlsPeer channel;
    TlsPeer merchants;
    ASSERT_TRUE(channel.serving());
    ASSERT_TRUE(merchants.serving());
    const QByteArray nobody = "https://localhost:" + QByteArray::number(keel::bindLoopback());
    const QByteArray notTls =
        "https://localhost:" + settings().value(QStringLiteral("port")).toUtf8();
    exec("INSERT INTO keel.merchants (name, api_key_hash, notify_url, status) VALUES "
         "('Tea House', sha256('a'), '" +
         merchants.url().replace("https://", "https://shop:hunter2@") +
         "/notify?token=s3cret', 'active'), ('Noodle Bar', sha256('b'), '" + merchants.url() +
         "/hooks', 'active'), ('Gone', sha256('c'), '" + nobody +
         "/notify', 'active'), ('Closed', sha256('d'), 'https://localhost:1/n', 'suspended'), "
         "('Typo', sha256('e'), 'https://', 'active')");
    // A saga in flight: its action at the merchants' host, its compensation
    // at a host nobody serves.
    exec("INSERT INTO keel.sagas (kind, public_id, merchant_id) SELECT 'order', "
         "'saga_doctorTest1', id FROM keel.merchants WHERE name = 'Noodle Bar'");
    exec("INSERT INTO keel.saga_steps (saga_id, step_index, name, kind, definition) "
         "SELECT id, 0, 'reserve', 'http', jsonb_build_object('action_url', '" +
         merchants.url() + "/reserve', 'compensate_url', '" + nobody +
         "/release') FROM keel.sagas WHERE public_id = 'saga_doctorTest1'");
    const QByteArray database =
        "KEEL_DB=" + loginAs(QStringLiteral("keel_gateway")).conninfo().toUtf8() + '\n';
    const QString verified = QStringLiteral(": reached, its certificate verified");
    const auto says = [](const keel::test::ProcessResult &result, const QString &line) {
        EXPECT_TRUE(result.out.contains(line)) << qPrintable(line) << '\n'
                                               << qPrintable(result.out + result.err);
    };

    // Each its own authority, options in both forms the services accept.
    const keel::test::ProcessResult right =
        doctor(database, {"KEEL_WORKER_OPTIONS=--channel=" + channel.url() + " --channel-ca-file=" +
                          channel.ca() + " --ca-file " + merchants.ca() + '\n'});
    EXPECT_EQ(right.exitCode, 1) << qPrintable(right.out + right.err);
    says(right, QStringLiteral("ok   --channel %1").arg(QLatin1String(channel.url())) + verified);
    says(right,
         QStringLiteral("ok   notify_url %1").arg(QLatin1String(merchants.url())) + verified);
    says(right, QStringLiteral("FIX  notify_url %1").arg(QLatin1String(nobody)));
    says(right, QStringLiteral("check the address"));
    says(right, QStringLiteral("FIX  notify_url of merchant"));
    EXPECT_EQ(right.out.count(QStringLiteral("notify_url ") + QLatin1String(merchants.url())), 1)
        << qPrintable(right.out);
    says(right,
         QStringLiteral("ok   saga participant %1").arg(QLatin1String(merchants.url())) + verified);
    says(right, QStringLiteral("FIX  saga participant %1").arg(QLatin1String(nobody)));
    EXPECT_EQ(right.out.count(QStringLiteral("saga participant ")), 2)
        << "one look per host, the action's and the compensation's: " << qPrintable(right.out);
    for (const char *unsaid : {"hunter2", "s3cret", "localhost:1:"})
        EXPECT_FALSE(right.out.contains(QLatin1String(unsaid))) << unsaid << qPrintable(right.out);

    // The two authorities swapped, and a second gateway instance whose
    // channel speaks no TLS: each service is judged by its own options.
    const keel::test::ProcessResult swapped =
        doctor(database, {"KEEL_WORKER_OPTIONS=--channel " + channel.url() + " --channel-ca-file " +
                              merchants.ca() + " --ca-file " + channel.ca() + '\n',
                          "KEEL_GATEWAY_OPTIONS=--channel wechatpay --wechatpay-api " + notTls +
                              " --ca-file " + channel.ca() + '\n'});
    EXPECT_EQ(swapped.exitCode, 1);
    says(swapped, QStringLiteral("FIX  --channel %1").arg(QLatin1String(channel.url())));
    says(swapped, QStringLiteral("FIX  notify_url %1").arg(QLatin1String(merchants.url())));
    says(swapped, QStringLiteral("FIX  saga participant %1").arg(QLatin1String(merchants.url())));
    says(swapped, QStringLiteral("name that authority's PEM file with --channel-ca-file"));
    says(swapped, QStringLiteral("name that authority's PEM file with --ca-file"));
    says(swapped, QStringLiteral("FIX  --channel %1").arg(QLatin1String(notTls)));
    says(swapped, QStringLiteral("is an https server answering at that port?"));
}

} // namespace
