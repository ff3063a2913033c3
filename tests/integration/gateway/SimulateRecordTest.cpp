// `keel simulate --record`: every request it sends and the answer it got, one
// JSON line each, true to what the gateway did.

#include "GatewayTest.h"
#include "KeelProcess.h"
#include "TestParticipant.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>

#include <gtest/gtest.h>

using namespace keel;
using namespace keel::test;

namespace {

class SimulateRecordTest : public RunningGatewayTest {};

TEST_F(SimulateRecordTest, EveryAnswerIsRecordedAsTheGatewayGaveIt)
{
    QTemporaryDir directory;
    const QString path = directory.filePath(QStringLiteral("record.jsonl"));
    const ProcessResult run =
        runKeel({QStringLiteral("simulate"), QStringLiteral("--http"), m_gateway->url(),
                 QStringLiteral("--api-key"), m_merchant.apiKey, QStringLiteral("--seconds"),
                 QStringLiteral("3"), QStringLiteral("--rate"), QStringLiteral("30"),
                 QStringLiteral("--record"), path},
                QProcessEnvironment::systemEnvironment(), 60000);
    ASSERT_EQ(run.exitCode, 0) << run.err.toStdString();

    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    // Its tally counts requests the same way: one line per request.
    ASSERT_TRUE(run.out.contains(QStringLiteral("requests=%1 ").arg(lines.size())))
        << run.out.toStdString() << " vs " << lines.size() << " lines";
    QSet<QString> named; // every charge an answer named: made (200) or declined (402)
    for (const QByteArray &line : lines) {
        const QJsonObject exchange = QJsonDocument::fromJson(line).object();
        ASSERT_FALSE(exchange.value(QStringLiteral("key")).toString().isEmpty()) << line.data();
        const int status = exchange.value(QStringLiteral("status")).toInt();
        EXPECT_NE(status, 0) << line.data();
        if (exchange.value(QStringLiteral("path")).toString() != QLatin1String("/v1/charges"))
            continue;
        const QJsonObject reply =
            QJsonDocument::fromJson(exchange.value(QStringLiteral("reply")).toString().toUtf8())
                .object();
        if (status == 402)
            named.insert(reply.value(QStringLiteral("error"))
                             .toObject()
                             .value(QStringLiteral("charge"))
                             .toString());
        if (status != 200)
            continue;
        const QString charge = reply.value(QStringLiteral("id")).toString();
        named.insert(charge);
        // The amount recorded as sent is the charge's amount in the database.
        const QString sent = exchange.value(QStringLiteral("body")).toString();
        EXPECT_TRUE(
            sent.startsWith(QStringLiteral("amount=%1&")
                                .arg(scalar("SELECT amount FROM keel.charges WHERE public_id = '" +
                                            charge.toLatin1() + "'"))))
            << sent.toStdString();
    }
    ASSERT_GT(named.size(), 10);
    // Every charge the gateway made was named to the client, and so is in the record.
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QString::number(named.size()));
}

TEST_F(SimulateRecordTest, WithAParticipantSomeOrdersAreSagasThatCallIt)
{
    TestParticipant participant;
    QTemporaryDir directory;
    const QString path = directory.filePath(QStringLiteral("record.jsonl"));
    const ProcessResult run = runKeel(
        {QStringLiteral("simulate"), QStringLiteral("--http"), m_gateway->url(),
         QStringLiteral("--api-key"), m_merchant.apiKey, QStringLiteral("--seconds"),
         QStringLiteral("3"), QStringLiteral("--rate"), QStringLiteral("150"),
         QStringLiteral("--participant"), participant.url(""), QStringLiteral("--record"), path},
        QProcessEnvironment::systemEnvironment(), 60000);
    ASSERT_EQ(run.exitCode, 0) << run.err.toStdString();
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    QSet<QString> started;
    for (const QByteArray &line : file.readAll().trimmed().split('\n')) {
        const QJsonObject exchange = QJsonDocument::fromJson(line).object();
        if (exchange.value(QStringLiteral("path")).toString() != QLatin1String("/v1/sagas"))
            continue;
        EXPECT_EQ(exchange.value(QStringLiteral("status")).toInt(), 200) << line.data();
        started.insert(
            QJsonDocument::fromJson(exchange.value(QStringLiteral("reply")).toString().toUtf8())
                .object()
                .value(QStringLiteral("id"))
                .toString());
    }
    ASSERT_GT(started.size(), 2);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.sagas"), QString::number(started.size()));
    // Each saga's first step calls the participant given.
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.saga_steps WHERE definition->>'action_url' = '" +
                     participant.url("/reserve").toUtf8() + "'"),
              QString::number(started.size()));
}

TEST_F(SimulateRecordTest, AParticipantThatIsNotAUrlIsRefusedBeforeAnythingIsSent)
{
    const ProcessResult run =
        runKeel({QStringLiteral("simulate"), QStringLiteral("--http"), m_gateway->url(),
                 QStringLiteral("--api-key"), m_merchant.apiKey, QStringLiteral("--seconds"),
                 QStringLiteral("2"), QStringLiteral("--participant"), QStringLiteral("inventory")},
                QProcessEnvironment::systemEnvironment(), 30000);
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_TRUE(run.err.contains(QLatin1String("--participant"))) << run.err.toStdString();
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QStringLiteral("0"));
}

TEST_F(SimulateRecordTest, AnUnwritableRecordIsRefusedBeforeAnythingIsSent)
{
    const ProcessResult run =
        runKeel({QStringLiteral("simulate"), QStringLiteral("--http"), m_gateway->url(),
                 QStringLiteral("--api-key"), m_merchant.apiKey, QStringLiteral("--seconds"),
                 QStringLiteral("2"), QStringLiteral("--record"),
                 QStringLiteral("/nonexistent-directory/record.jsonl")},
                QProcessEnvironment::systemEnvironment(), 30000);
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_TRUE(run.err.contains(QLatin1String("--record"))) << run.err.toStdString();
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QStringLiteral("0"));
}

} // namespace
