#include "TestCluster.h"

#include "core/db/LibpqConnection.h"
#include "devkit/servers/EmbeddedCluster.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace keel::test {

QString uniqueSuffix()
{
    return QStringLiteral("%1_%2")
        .arg(::getpid())
        .arg(QRandomGenerator::global()->generate() % 1000000);
}

namespace {
TestCluster *s_instance = nullptr;
}

TestCluster &TestCluster::instance()
{
    if (!s_instance)
        s_instance = new TestCluster;
    return *s_instance;
}

void TestCluster::shutdownIfStarted()
{
    delete s_instance;
    s_instance = nullptr;
}

TestCluster::TestCluster()
{
    if (const QString dsn = qEnvironmentVariable("KEEL_TEST_DSN"); !dsn.isEmpty()) {
        Result<ConnectionSettings> parsed = ConnectionSettings::parse(dsn);
        if (!parsed) {
            std::fprintf(stderr, "KEEL_TEST_DSN: %s\n", qPrintable(parsed.error().message));
            std::abort();
        }
        m_admin = *parsed;
        m_admin.set(QStringLiteral("dbname"), QStringLiteral("postgres"));
        return;
    }
    if (const QString file = qEnvironmentVariable("KEEL_TEST_CLUSTER_FILE"); !file.isEmpty()) {
        QFile in(file);
        if (in.open(QIODevice::ReadOnly)) {
            const QStringList lines = QString::fromUtf8(in.readAll()).split(u'\n');
            if (lines.size() >= 2) {
                m_admin.set(QStringLiteral("host"), lines.at(0));
                m_admin.set(QStringLiteral("port"), lines.at(1));
                m_admin.set(QStringLiteral("user"), EmbeddedCluster::superuser());
                m_admin.set(QStringLiteral("dbname"), QStringLiteral("postgres"));
                if (serverAccepting(m_admin))
                    return;
            }
        }
        m_admin = {};
    }
    if (Status started = startOwnCluster(); !started) {
        std::fprintf(stderr, "cannot start a throwaway PostgreSQL: %s\n",
                     qPrintable(started.error().message));
        std::abort();
    }
}

TestCluster::~TestCluster()
{
    shutdown();
}

Status TestCluster::startOwnCluster()
{
    m_ownDirectory = std::make_unique<QTemporaryDir>(QStringLiteral("/tmp/keel-test-XXXXXX"));
    if (!m_ownDirectory->isValid())
        return makeError(ErrorKind::Environment,
                         QStringLiteral("cannot make a directory in /tmp: %1")
                             .arg(m_ownDirectory->errorString()));
    Result<std::unique_ptr<EmbeddedCluster>> created =
        EmbeddedCluster::create({m_ownDirectory->path(), 0, false});
    if (!created)
        return created.error();
    m_ownCluster = std::move(created).value();
    if (Result<bool> initialized = m_ownCluster->initialize(); !initialized)
        return initialized.error();
    if (Status started = m_ownCluster->start(); !started)
        return started;
    m_admin = m_ownCluster->settings(QStringLiteral("postgres"));
    return {};
}

void TestCluster::shutdown()
{
    if (m_ownCluster)
        (void)m_ownCluster->stop();
    m_ownCluster.reset();
    m_ownDirectory.reset();
}

ConnectionSettings TestCluster::settings(const QString &database) const
{
    ConnectionSettings settings = m_admin;
    settings.set(QStringLiteral("dbname"), database);
    return settings;
}

Status TestCluster::execAdmin(const QByteArray &sql)
{
    Result<LibpqConnection> session = LibpqConnection::open(m_admin);
    if (!session)
        return session.error();
    return session->exec(sql);
}

Result<QString> TestCluster::createDatabase(const QString &prefix)
{
    const QString name = prefix + u'_' + uniqueSuffix();
    if (Status status = execAdmin("CREATE DATABASE " + name.toLatin1()); !status)
        return status.error();
    return name;
}

void TestCluster::dropDatabase(const QString &name)
{
    (void)execAdmin("DROP DATABASE IF EXISTS " + name.toLatin1() + " WITH (FORCE)");
}

Status TestCluster::createLoginRole(const QString &name, const QString &memberOf,
                                    const QString &password)
{
    QByteArray sql = "CREATE ROLE " + name.toLatin1() + " LOGIN";
    if (!password.isEmpty())
        sql += " PASSWORD '" + password.toUtf8().replace('\'', "''") + "'";
    if (!memberOf.isEmpty())
        sql += " IN ROLE " + memberOf.toLatin1();
    return execAdmin(sql);
}

void TestCluster::dropRole(const QString &name)
{
    (void)execAdmin("DROP ROLE IF EXISTS " + name.toLatin1());
}

} // namespace keel::test
