// sslmode=verify-full against a real TLS server: a private PostgreSQL with a
// certificate for "localhost" signed by a throwaway CA. The console's profile
// and connection check go through libpq's own verification.
#include "QtPrinters.h"

#include "core/db/ConnectionCheck.h"
#include "core/db/ConnectionProfile.h"
#include "devkit/servers/EmbeddedCluster.h"

#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>

#include <unistd.h>

using namespace keel;

namespace {

bool openssl(const QStringList &arguments, const QString &directory)
{
    QProcess process;
    process.setWorkingDirectory(directory);
    process.start(QStringLiteral("openssl"), arguments);
    return process.waitForFinished(30000) && process.exitStatus() == QProcess::NormalExit &&
           process.exitCode() == 0;
}

class TlsConnectionTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(m_work.isValid());
        // The server may run as another account; it must reach its directory.
        QFile::setPermissions(m_work.path(), QFile::ReadOwner | QFile::WriteOwner |
                                                 QFile::ExeOwner | QFile::ExeGroup |
                                                 QFile::ExeOther | QFile::ReadOther);
        const QString pki = m_work.filePath(QStringLiteral("pki"));
        ASSERT_TRUE(QDir().mkpath(pki));
        QFile san(pki + QStringLiteral("/san.ext"));
        ASSERT_TRUE(san.open(QIODevice::WriteOnly));
        san.write("subjectAltName=DNS:localhost\n");
        san.close();
        const QStringList ec{
            QStringLiteral("-newkey"), QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
            QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes")};
        ASSERT_TRUE(
            openssl(QStringList{QStringLiteral("req"), QStringLiteral("-x509")} + ec +
                        QStringList{QStringLiteral("-keyout"), QStringLiteral("ca.key"),
                                    QStringLiteral("-out"), QStringLiteral("ca.crt"),
                                    QStringLiteral("-days"), QStringLiteral("2"),
                                    QStringLiteral("-subj"), QStringLiteral("/CN=keel test CA")},
                    pki));
        ASSERT_TRUE(
            openssl(QStringList{QStringLiteral("req")} + ec +
                        QStringList{QStringLiteral("-keyout"), QStringLiteral("server.key"),
                                    QStringLiteral("-out"), QStringLiteral("server.csr"),
                                    QStringLiteral("-subj"), QStringLiteral("/CN=localhost")},
                    pki));
        ASSERT_TRUE(openssl(
            {QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"),
             QStringLiteral("server.csr"), QStringLiteral("-CA"), QStringLiteral("ca.crt"),
             QStringLiteral("-CAkey"), QStringLiteral("ca.key"), QStringLiteral("-CAcreateserial"),
             QStringLiteral("-out"), QStringLiteral("server.crt"), QStringLiteral("-days"),
             QStringLiteral("2"), QStringLiteral("-extfile"), QStringLiteral("san.ext")},
            pki));
        m_rootCert = pki + QStringLiteral("/ca.crt");

        const QString data = m_work.filePath(QStringLiteral("data"));
        auto created = EmbeddedCluster::create({data, 0, false});
        ASSERT_TRUE(created.ok()) << qPrintable(created.error().message);
        m_cluster = std::move(created).value();
        auto initialized = m_cluster->initialize();
        ASSERT_TRUE(initialized.ok()) << qPrintable(initialized.error().message);
        // The server's key must belong to the account the server runs as.
        const QFileInfo owner(data);
        for (const char *file : {"server.crt", "server.key"}) {
            const QString target = data + u'/' + QLatin1String(file);
            ASSERT_TRUE(QFile::copy(pki + u'/' + QLatin1String(file), target));
            ASSERT_EQ(
                ::chown(QFile::encodeName(target).constData(), owner.ownerId(), owner.groupId()),
                0);
            QFile::setPermissions(target, QFile::ReadOwner | QFile::WriteOwner);
        }
        QFile conf(data + QStringLiteral("/postgresql.conf"));
        ASSERT_TRUE(conf.open(QIODevice::Append));
        conf.write("\nssl = on\n");
        conf.close();
        const Status started = m_cluster->start();
        ASSERT_TRUE(started.ok()) << qPrintable(started.error().message);
        QFile password(data + QStringLiteral("/keel.password"));
        ASSERT_TRUE(password.open(QIODevice::ReadOnly));
        m_password = QString::fromUtf8(password.readAll().trimmed());
    }
    void TearDown() override
    {
        if (m_cluster)
            (void)m_cluster->stop();
    }

    ConnectionProfile profile(const QString &host) const
    {
        ConnectionProfile profile;
        profile.name = QStringLiteral("tls");
        profile.host = host;
        profile.port = m_cluster->port();
        profile.database = QStringLiteral("postgres");
        profile.user = EmbeddedCluster::superuser();
        profile.sslMode = QStringLiteral("verify-full");
        profile.sslRootCert = m_rootCert;
        return profile;
    }
    ConnectionCheck check(const ConnectionProfile &profile) const
    {
        auto settings = profile.primary();
        EXPECT_TRUE(settings.ok()) << qPrintable(settings.error().message);
        ConnectionSettings withPassword = *settings;
        withPassword.set(QStringLiteral("password"), m_password);
        return ConnectionCheck::run(withPassword);
    }

    QTemporaryDir m_work;
    QString m_rootCert;
    QString m_password;
    std::unique_ptr<EmbeddedCluster> m_cluster;
};

} // namespace

TEST_F(TlsConnectionTest, VerifyFullAcceptsTheServerItsRootCertificateVouchesFor)
{
    const ConnectionCheck ok = check(profile(QStringLiteral("localhost")));
    EXPECT_EQ(ok.outcome, ConnectionCheck::Outcome::Connected) << qPrintable(ok.message);
}

TEST_F(TlsConnectionTest, VerifyFullRefusesAHostNameTheCertificateDoesNotName)
{
    // Same server, reached by an address its certificate does not carry.
    const ConnectionCheck refused = check(profile(QStringLiteral("127.0.0.1")));
    EXPECT_EQ(refused.outcome, ConnectionCheck::Outcome::Failed);
    EXPECT_TRUE(refused.message.contains(QLatin1String("does not match host name")))
        << qPrintable(refused.message);
    EXPECT_FALSE(refused.message.contains(m_password));
}

TEST_F(TlsConnectionTest, VerifyFullRefusesAServerSignedByAnotherAuthority)
{
    ConnectionProfile other = profile(QStringLiteral("localhost"));
    // A root that did not sign the server's certificate: the server's own.
    other.sslRootCert = m_work.filePath(QStringLiteral("pki/server.crt"));
    const ConnectionCheck refused = check(other);
    EXPECT_EQ(refused.outcome, ConnectionCheck::Outcome::Failed);
    EXPECT_TRUE(refused.message.contains(QLatin1String("certificate verify failed")))
        << qPrintable(refused.message);
}

// Debian's /etc/hosts names localhost ::1 as well as 127.0.0.1, and this
// server listens on 127.0.0.1 only: libpq tries ::1 first (refused), then
// 127.0.0.1. The person connecting must be told what 127.0.0.1 said.
// hostaddr pins both attempts, so the test does not depend on this machine's
// own /etc/hosts.
TEST_F(TlsConnectionTest, ANameWithARefusingAndAnAnsweringAddressReportsTheOneThatAnswered)
{
    ConnectionProfile twoAddresses = profile(QStringLiteral("localhost"));
    auto settings = twoAddresses.primary();
    ASSERT_TRUE(settings.ok()) << qPrintable(settings.error().message);
    ConnectionSettings both = *settings;
    both.set(QStringLiteral("host"), QStringLiteral("localhost,localhost"));
    both.set(QStringLiteral("hostaddr"), QStringLiteral("::1,127.0.0.1"));
    both.set(QStringLiteral("password"), m_password);
    const ConnectionCheck connected = ConnectionCheck::run(both);
    EXPECT_EQ(connected.outcome, ConnectionCheck::Outcome::Connected)
        << qPrintable(connected.message);

    both.set(QStringLiteral("sslrootcert"), m_work.filePath(QStringLiteral("pki/server.crt")));
    const ConnectionCheck refused = ConnectionCheck::run(both);
    EXPECT_EQ(refused.outcome, ConnectionCheck::Outcome::Failed);
    EXPECT_TRUE(refused.message.startsWith(QLatin1String("SSL error: certificate verify failed")))
        << qPrintable(refused.message);
    EXPECT_TRUE(refused.message.contains(QLatin1String("also tried ::1")))
        << qPrintable(refused.message);
}
