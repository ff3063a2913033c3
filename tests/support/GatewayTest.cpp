#include "GatewayTest.h"

#include <QJsonDocument>

#include "KeelProcess.h"

#include "core/channel/SimulatedChannel.h"
#include "core/db/LibpqConnection.h"

#include <QElapsedTimer>

namespace keel::test {

void GatewayTest::SetUp()
{
    DatabaseTest::SetUp();
    migrate();
    auto session = LibpqConnection::open(settings());
    ASSERT_TRUE(session.ok());
    auto issued = MerchantStore(*session).create(QStringLiteral("Test Merchant"), {});
    ASSERT_TRUE(issued.ok()) << qPrintable(issued.error().message);
    m_merchant = *issued;
    // As production runs it: the service logs in as a keel_gateway member.
    m_serviceLogin = loginAs(QStringLiteral("keel_gateway"));
    m_options.settings = m_serviceLogin;
    m_options.http.port = 0;
    m_options.http.threads = 4;
}

void GatewayTest::TearDown()
{
    m_client.reset();
    if (m_gateway)
        m_gateway->stop();
    m_gateway.reset();
    DatabaseTest::TearDown();
}

void GatewayTest::startGateway()
{
    m_options.channel = m_remoteChannel ? m_remoteChannel : simulatedChannel(m_channel);
    auto runtime = GatewayRuntime::start(m_options);
    ASSERT_TRUE(runtime.ok()) << qPrintable(runtime.error().message);
    m_gateway = std::move(runtime).value();
    m_client = std::make_unique<HttpClient>(QStringLiteral("127.0.0.1"), m_gateway->port());
}

HttpClient::Headers GatewayTest::auth() const
{
    return {{"Authorization", "Bearer " + m_merchant.apiKey.toLatin1()}};
}

HttpReply GatewayTest::post(const QByteArray &path, const QByteArray &form, const QByteArray &key,
                            HttpClient::Headers extra, HttpClient *client)
{
    HttpClient::Headers headers = auth();
    headers.append(
        std::pair<QByteArray, QByteArray>("Content-Type", "application/x-www-form-urlencoded"));
    if (!key.isEmpty())
        headers.append(std::pair<QByteArray, QByteArray>("Idempotency-Key", key));
    headers += extra;
    return (client ? client : m_client.get())->request("POST", path, headers, form);
}

HttpReply GatewayTest::get(const QByteArray &path)
{
    return m_client->request("GET", path, auth());
}

QJsonObject jsonOf(const HttpReply &reply)
{
    return QJsonDocument::fromJson(reply.body).object();
}

QString GatewayTest::scalar(const QByteArray &sql)
{
    auto session = LibpqConnection::open(settings());
    if (!session)
        return session.error().message;
    auto value = session->scalar(sql);
    return value ? *value : value.error().message;
}

std::unique_ptr<QProcess> GatewayTest::spawnGateway(const QStringList &extraArguments, QString *url,
                                                    const QProcessEnvironment &environment)
{
    // The tests' participants listen on loopback over plain HTTP.
    return startKeel(QStringList{QStringLiteral("gateway"), QStringLiteral("--db"),
                                 m_serviceLogin.conninfo(), QStringLiteral("--listen"),
                                 QStringLiteral("127.0.0.1:0"), QStringLiteral("--allow-http")} +
                         extraArguments,
                     QStringLiteral("KEEL_HTTP"), url, environment);
}

std::unique_ptr<HttpClient> GatewayTest::clientFor(const QString &url, int timeoutMs)
{
    QString host;
    int port = 0;
    HttpClient::parseUrl(url, &host, &port);
    return std::make_unique<HttpClient>(host, port, timeoutMs);
}

void GatewayTest::crashGatewayAt(const char *point, const QByteArray &path, const QByteArray &form,
                                 const QByteArray &key)
{
    QProcessEnvironment crashing = QProcessEnvironment::systemEnvironment();
    crashing.insert(QStringLiteral("KEEL_CHAOS_EXIT_AT"), QString::fromLatin1(point));
    QString url;
    auto doomed = spawnGateway({}, &url, crashing);
    ASSERT_FALSE(url.isEmpty());
    EXPECT_EQ(post(path, form, key, {}, clientFor(url, 10000).get()).status, 0)
        << "the gateway should have died at " << point;
    ASSERT_TRUE(doomed->waitForFinished(10000));
    EXPECT_EQ(doomed->exitCode(), 86) << "the gateway should have died at " << point;
}

} // namespace keel::test
