#include "core/db/ConnectionProfile.h"
#include "QtPrinters.h"

#include <gtest/gtest.h>

#include <QFile>
#include <QTemporaryDir>

using keel::ConnectionProfile;

namespace {

ConnectionProfile hostProfile()
{
    ConnectionProfile profile;
    profile.name = QStringLiteral("production");
    profile.host = QStringLiteral("db.example");
    profile.port = 6432;
    profile.database = QStringLiteral("keel");
    profile.user = QStringLiteral("alice");
    return profile;
}

// libpq looks for ~/.postgresql/root.crt; these tests must not see a real one.
class ConnectionProfileTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(m_home.isValid());
        m_previousHome = qgetenv("HOME");
        qputenv("HOME", m_home.path().toUtf8());
    }
    void TearDown() override { qputenv("HOME", m_previousHome); }

    QString writeCertificate()
    {
        const QString path = m_home.filePath(QStringLiteral("ca.crt"));
        QFile file(path);
        EXPECT_TRUE(file.open(QIODevice::WriteOnly));
        file.write("-----BEGIN CERTIFICATE-----\n");
        return path;
    }

    QTemporaryDir m_home;
    QByteArray m_previousHome;
};

} // namespace

TEST_F(ConnectionProfileTest, HostFieldsBecomeLibpqKeywords)
{
    auto settings = hostProfile().primary();
    ASSERT_TRUE(settings.ok()) << qPrintable(settings.error().message);
    EXPECT_EQ(settings->value(QStringLiteral("host")), QStringLiteral("db.example"));
    EXPECT_EQ(settings->value(QStringLiteral("port")), QStringLiteral("6432"));
    EXPECT_EQ(settings->value(QStringLiteral("dbname")), QStringLiteral("keel"));
    EXPECT_EQ(settings->value(QStringLiteral("user")), QStringLiteral("alice"));
    EXPECT_FALSE(settings->has(QStringLiteral("sslmode"))); // libpq's default
}

TEST_F(ConnectionProfileTest, EachBadFieldIsNamed)
{
    const auto fieldOf = [](const ConnectionProfile &profile) {
        auto settings = profile.primary();
        return settings.ok() ? QStringLiteral("<accepted>") : settings.error().field;
    };
    ConnectionProfile unnamed = hostProfile();
    unnamed.name = QStringLiteral("  ");
    EXPECT_EQ(fieldOf(unnamed), QStringLiteral("name"));

    ConnectionProfile badPort = hostProfile();
    badPort.port = 70000;
    EXPECT_EQ(fieldOf(badPort), QStringLiteral("port"));

    ConnectionProfile noService = hostProfile();
    noService.kind = ConnectionProfile::Kind::Service;
    EXPECT_EQ(fieldOf(noService), QStringLiteral("service"));

    ConnectionProfile badUri = hostProfile();
    badUri.kind = ConnectionProfile::Kind::Uri;
    badUri.uri = QStringLiteral("postgresql://db.example/keel?no_such_option=1");
    EXPECT_EQ(fieldOf(badUri), QStringLiteral("uri"));

    ConnectionProfile badMode = hostProfile();
    badMode.sslMode = QStringLiteral("verify-everything");
    EXPECT_EQ(fieldOf(badMode), QStringLiteral("sslmode"));

    ConnectionProfile missingCert = hostProfile();
    missingCert.sslMode = QStringLiteral("verify-full");
    missingCert.sslRootCert = QStringLiteral("/nonexistent/ca.crt");
    EXPECT_EQ(fieldOf(missingCert), QStringLiteral("sslrootcert"));

    // Found by ConnectionProfileFuzz: libpq would have read "al" as the user.
    ConnectionProfile nulInUser = hostProfile();
    nulInUser.user = QStringLiteral("al") + QChar(u'\0') + QStringLiteral("ice");
    EXPECT_EQ(fieldOf(nulInUser), QStringLiteral("user"));
    ConnectionProfile nulInReplica = hostProfile();
    nulInReplica.replicaDsn = QStringLiteral("host=replica") + QChar(u'\0') + QStringLiteral("x");
    EXPECT_EQ(fieldOf(nulInReplica), QStringLiteral("replica"));
}

TEST_F(ConnectionProfileTest, PasswordsAreRefusedInUris)
{
    ConnectionProfile profile = hostProfile();
    profile.kind = ConnectionProfile::Kind::Uri;
    profile.uri = QStringLiteral("postgresql://alice:hunter2@db.example/keel");
    auto settings = profile.primary();
    ASSERT_FALSE(settings.ok());
    EXPECT_EQ(settings.error().field, QStringLiteral("uri"));
    EXPECT_FALSE(settings.error().message.contains(QLatin1String("hunter2")));

    profile.kind = ConnectionProfile::Kind::Fields;
    profile.replicaDsn = QStringLiteral("host=replica password=hunter2");
    auto replica = profile.replica();
    ASSERT_FALSE(replica.ok());
    EXPECT_EQ(replica.error().field, QStringLiteral("replica"));
}

TEST_F(ConnectionProfileTest, VerifyFullNeedsARootCertificate)
{
    ConnectionProfile profile = hostProfile();
    profile.sslMode = QStringLiteral("verify-full");
    auto refused = profile.primary();
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().field, QStringLiteral("sslrootcert"));
    EXPECT_TRUE(refused.error().message.contains(QLatin1String("root.crt")));

    profile.sslRootCert = writeCertificate();
    auto accepted = profile.primary();
    ASSERT_TRUE(accepted.ok()) << qPrintable(accepted.error().message);
    EXPECT_EQ(accepted->value(QStringLiteral("sslmode")), QStringLiteral("verify-full"));
    EXPECT_EQ(accepted->value(QStringLiteral("sslrootcert")), profile.sslRootCert);
}

TEST_F(ConnectionProfileTest, DialogTlsFieldsOverrideTheUri)
{
    ConnectionProfile profile = hostProfile();
    profile.kind = ConnectionProfile::Kind::Uri;
    profile.uri = QStringLiteral("postgresql://alice@db.example/keel?sslmode=disable");
    profile.sslMode = QStringLiteral("require");
    auto settings = profile.primary();
    ASSERT_TRUE(settings.ok()) << qPrintable(settings.error().message);
    EXPECT_EQ(settings->value(QStringLiteral("sslmode")), QStringLiteral("require"));
    EXPECT_EQ(settings->value(QStringLiteral("host")), QStringLiteral("db.example"));
}

TEST_F(ConnectionProfileTest, ReplicaInheritsWhoAndHowFromThePrimary)
{
    ConnectionProfile profile = hostProfile();
    profile.sslMode = QStringLiteral("verify-full");
    profile.sslRootCert = writeCertificate();
    auto none = profile.replica();
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->has_value());

    profile.replicaDsn = QStringLiteral("host=replica.example port=5433");
    auto replica = profile.replica();
    ASSERT_TRUE(replica.ok()) << qPrintable(replica.error().message);
    ASSERT_TRUE(replica->has_value());
    const keel::ConnectionSettings &settings = **replica;
    EXPECT_EQ(settings.value(QStringLiteral("host")), QStringLiteral("replica.example"));
    EXPECT_EQ(settings.value(QStringLiteral("port")), QStringLiteral("5433"));
    EXPECT_EQ(settings.value(QStringLiteral("user")), QStringLiteral("alice"));
    EXPECT_EQ(settings.value(QStringLiteral("dbname")), QStringLiteral("keel"));
    EXPECT_EQ(settings.value(QStringLiteral("sslmode")), QStringLiteral("verify-full"));
    EXPECT_EQ(settings.value(QStringLiteral("sslrootcert")), profile.sslRootCert);
}

TEST_F(ConnectionProfileTest, RoundTripsThroughAMapWithoutAPassword)
{
    ConnectionProfile profile = hostProfile();
    profile.kind = ConnectionProfile::Kind::Service;
    profile.service = QStringLiteral("keel-prod");
    profile.sslMode = QStringLiteral("require");
    profile.replicaDsn = QStringLiteral("host=replica");
    const QVariantMap map = profile.toMap();
    for (auto it = map.cbegin(); it != map.cend(); ++it)
        EXPECT_FALSE(it.key().contains(QLatin1String("password"), Qt::CaseInsensitive));
    const ConnectionProfile back = ConnectionProfile::fromMap(map);
    EXPECT_EQ(back.toMap(), map);
    EXPECT_EQ(back.kind, ConnectionProfile::Kind::Service);
    EXPECT_EQ(back.port, 6432);
}
