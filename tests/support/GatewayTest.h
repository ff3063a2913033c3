#pragma once

#include "DatabaseTest.h"

#include "core/channel/SimulatedChannel.h"
#include "core/merchant/MerchantStore.h"
#include "core/net/HttpClient.h"
#include "core/runtime/GatewayRuntime.h"

#include <QJsonObject>
#include <QProcess>

#include <memory>

namespace keel::test {

// A reply's body as a JSON object (empty if it is not one).
QJsonObject jsonOf(const HttpReply &reply);

// A fresh migrated database with one merchant, and the gateway serving it.
class GatewayTest : public DatabaseTest {
protected:
    void SetUp() override;
    void TearDown() override;

    // Starts the in-process gateway (tests may adjust m_options first).
    void startGateway();

    // POST with a form body; `key` empty sends no Idempotency-Key.
    HttpReply post(const QByteArray &path, const QByteArray &form, const QByteArray &key,
                   HttpClient::Headers extra = {}, HttpClient *client = nullptr);
    HttpReply get(const QByteArray &path);
    HttpClient::Headers auth() const;

    // A value from the test database.
    QString scalar(const QByteArray &sql);

    // A `keel gateway` process on this database; its URL is returned once ready.
    std::unique_ptr<QProcess>
    spawnGateway(const QStringList &extraArguments, QString *url,
                 const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment());

    // A keep-alive client for a gateway's URL (http://host:port).
    static std::unique_ptr<HttpClient> clientFor(const QString &url, int timeoutMs = 30000);

    // Spawns a `keel gateway` that exits (code 86) at the chaos point `point`,
    // sends it one POST, and waits for it to die mid-request: the state a
    // crashed gateway leaves behind. Test failures are recorded as usual.
    void crashGatewayAt(const char *point, const QByteArray &path, const QByteArray &form,
                        const QByteArray &key);

    ConnectionSettings m_serviceLogin; // a keel_gateway login, as the services run
    GatewayOptions m_options;
    SimulatedChannelConfig m_channel; // the simulated channel startGateway() uses
    ChannelFactory m_remoteChannel;   // when set, startGateway() uses it instead
    IssuedMerchant m_merchant;
    std::unique_ptr<GatewayRuntime> m_gateway;
    std::unique_ptr<HttpClient> m_client;
};

// A GatewayTest whose in-process gateway is already serving.
class RunningGatewayTest : public GatewayTest {
protected:
    void SetUp() override
    {
        GatewayTest::SetUp();
        if (!HasFatalFailure())
            startGateway();
    }
};

} // namespace keel::test
