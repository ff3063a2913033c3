// A saga whose participant is served over HTTPS, with a certificate from the
// deployment's own authority that the worker trusts (`--ca-file`): the step
// is called over verified TLS, with DTM's parameters, and the saga succeeds.

#include "SagaTestFixture.h"
#include "TestPki.h"

#include "core/net/TlsSession.h"

#include <QDir>
#include <QStandardPaths>

namespace keel::test {
namespace {

class HttpsParticipantTest : public SagaTest {
protected:
    void TearDown() override
    {
        if (m_node.state() != QProcess::NotRunning) {
            m_node.kill();
            m_node.waitForFinished(5000);
        }
        (void)TlsSession::trustAlso({});
        SagaTest::TearDown();
    }

    // The participant's port, once it listens.
    QByteArray serveParticipant(const TestPki &pki)
    {
        const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
        EXPECT_FALSE(node.isEmpty()) << "node is needed (Debian package nodejs)";
        m_node.setWorkingDirectory(QStringLiteral(KEEL_COMPAT_DIR));
        m_node.start(node, {QStringLiteral("https_participant.mjs"), pki.serverCertificate(),
                            pki.serverKey()});
        while (!m_heard.contains('\n') && m_node.waitForReadyRead(15000))
            m_heard += m_node.readAllStandardOutput();
        EXPECT_TRUE(m_heard.startsWith("listening ")) << m_heard.constData();
        return m_heard.mid(10).trimmed();
    }

    QProcess m_node;
    QByteArray m_heard;
};

TEST_F(HttpsParticipantTest, ASagaRunsAgainstAnHttpsParticipantItsWorkerTrusts)
{
    const TestPki pki;
    ASSERT_TRUE(pki.ok());
    ASSERT_EQ(TlsSession::trustAlso(pki.caCertificate()), QString());
    const QByteArray port = serveParticipant(pki);
    ASSERT_FALSE(port.isEmpty());
    const QString base = QStringLiteral("https://localhost:%1").arg(QString::fromLatin1(port));
    QJsonObject reserve{
        {QStringLiteral("name"), QStringLiteral("reserve")},
        {QStringLiteral("action_url"), QString(base + QStringLiteral("/reserve"))},
        {QStringLiteral("compensate_url"), QString(base + QStringLiteral("/release"))},
        {QStringLiteral("retry"), quickRetry(3)},
        {QStringLiteral("compensation_retry"), quickRetry(2)}};
    QJsonObject saga = orderSaga();
    saga.insert(QStringLiteral("steps"), QJsonArray{chargeStep(), reserve});

    startWorker();
    const QString id = start(saga);
    const QJsonObject done = waitFor(id, QStringLiteral("succeeded"));
    const QJsonArray log = step(done, 1).value(QStringLiteral("attempt_log")).toArray();
    ASSERT_EQ(log.size(), 1) << QJsonDocument(done).toJson().constData();
    EXPECT_EQ(log.at(0).toObject().value(QStringLiteral("status")).toInt(), 200);
    while (m_node.waitForReadyRead(500))
        m_heard += m_node.readAllStandardOutput();
    EXPECT_TRUE(m_heard.contains(QByteArray("call /reserve?gid=" + id.toUtf8())))
        << m_heard.constData();
    EXPECT_FALSE(m_heard.contains("call /release")) << m_heard.constData();
}

} // namespace
} // namespace keel::test
