// TCC: the barrier in every order DTM's barrier handles, and global
// transactions posted to the gateway, run by a worker against participants
// that keep their accounts in PostgreSQL behind keel's barrier.

#include "SagaTestFixture.h"

#include "core/db/ThreadConnections.h"
#include "core/net/HttpRequest.h"
#include "core/net/HttpResponse.h"
#include "core/saga/TccBarrier.h"

#include <QUrlQuery>

namespace keel::test {
namespace {

using Outcome = TccBarrier::Outcome;

constexpr char AccountsTable[] =
    "CREATE TABLE tcc_accounts (name text PRIMARY KEY, balance bigint NOT NULL, "
    "  frozen bigint NOT NULL CHECK (frozen >= 0)); "
    "INSERT INTO tcc_accounts VALUES ('a', 100, 0), ('b', 100, 0)";

// The participant's local work: try freezes 10, confirm spends it, cancel
// releases it.
Status accountWork(LibpqConnection &connection, const QString &account, const QString &op)
{
    const QByteArray sql =
        op == QLatin1String("try") || op == QLatin1String("action")
            ? "UPDATE tcc_accounts SET frozen = frozen + 10 WHERE name = $1"
        : op == QLatin1String("confirm")
            ? "UPDATE tcc_accounts SET frozen = frozen - 10, balance = balance - 10 WHERE name = $1"
            : "UPDATE tcc_accounts SET frozen = frozen - 10 WHERE name = $1";
    Result<PgRows> rows = connection.query(sql, {account.toUtf8()});
    if (!rows)
        return rows.error();
    return {};
}

class TccBarrierTest : public DatabaseTest {
protected:
    void SetUp() override
    {
        DatabaseTest::SetUp();
        migrate();
        auto connection = LibpqConnection::open(settings());
        ASSERT_TRUE(connection.ok());
        m_connection = std::make_unique<LibpqConnection>(std::move(connection).value());
        ASSERT_TRUE(m_connection->exec(AccountsTable).ok());
    }
    Outcome call(const char *op, const char *gid = "g1")
    {
        auto outcome =
            TccBarrier(*m_connection)
                .call(QString::fromLatin1(gid), QStringLiteral("01"), QString::fromLatin1(op),
                      [op](LibpqConnection &c) {
                          return accountWork(c, QStringLiteral("a"), QString::fromLatin1(op));
                      });
        EXPECT_TRUE(outcome.ok()) << qPrintable(outcome.error().message);
        return outcome ? *outcome : Outcome::Duplicate;
    }
    QString account()
    {
        auto value = m_connection->scalar(
            "SELECT balance || '/' || frozen FROM tcc_accounts WHERE name = 'a'");
        return value ? *value : value.error().message;
    }
    std::unique_ptr<LibpqConnection> m_connection;
};

TEST_F(TccBarrierTest, TryThenConfirmAppliesEachOnceAndRepeatsDoNothing)
{
    EXPECT_EQ(call("try"), Outcome::Applied);
    EXPECT_EQ(call("try"), Outcome::Duplicate);
    EXPECT_EQ(call("confirm"), Outcome::Applied);
    EXPECT_EQ(call("confirm"), Outcome::Duplicate);
    EXPECT_EQ(account(), QStringLiteral("90/0"));
}

TEST_F(TccBarrierTest, TryThenCancelReleasesOnceAndARepeatedCancelDoesNothing)
{
    EXPECT_EQ(call("try"), Outcome::Applied);
    EXPECT_EQ(call("cancel"), Outcome::Applied);
    EXPECT_EQ(call("cancel"), Outcome::Duplicate);
    EXPECT_EQ(account(), QStringLiteral("100/0"));
}

TEST_F(TccBarrierTest, ACancelWithoutATryIsAnEmptyRollbackAndTheLateTryHangsNot)
{
    // Without the barrier this cancel would release money never frozen (the
    // CHECK on frozen would refuse it) and the late try would freeze it for good.
    EXPECT_EQ(call("cancel"), Outcome::EmptyRollback);
    EXPECT_EQ(call("try"), Outcome::Hanging);
    EXPECT_EQ(call("cancel"), Outcome::Duplicate);
    EXPECT_EQ(account(), QStringLiteral("100/0"));
    auto reason = m_connection->scalar("SELECT reason FROM keel.tcc_barrier WHERE op = 'try'");
    ASSERT_TRUE(reason.ok());
    EXPECT_EQ(*reason, QStringLiteral("empty_rollback"));
}

TEST_F(TccBarrierTest, WorkThatFailsLeavesNoBarrierRowSoTheOperationCanRunAgain)
{
    auto failed =
        TccBarrier(*m_connection)
            .call(QStringLiteral("g2"), QStringLiteral("01"), QStringLiteral("try"),
                  [](LibpqConnection &c) {
                      return accountWork(c, QStringLiteral("a"), QStringLiteral("try")).ok()
                                 ? Status(makeError(ErrorKind::Failed,
                                                    QStringLiteral("stock service down")))
                                 : Status();
                  });
    EXPECT_FALSE(failed.ok());
    EXPECT_EQ(account(), QStringLiteral("100/0")) << "the work rolled back with the barrier";
    EXPECT_EQ(call("try", "g2"), Outcome::Applied);
    EXPECT_EQ(account(), QStringLiteral("100/10"));
}

TEST_F(TccBarrierTest, SagaOperationNamesMapOntoTryAndCancelAndOthersAreRefused)
{
    EXPECT_EQ(call("action"), Outcome::Applied);
    EXPECT_EQ(call("try"), Outcome::Duplicate);
    EXPECT_EQ(call("compensate"), Outcome::Applied);
    auto refused = TccBarrier(*m_connection)
                       .call(QStringLiteral("g1"), QStringLiteral("01"), QStringLiteral("commit"),
                             [](LibpqConnection &) { return Status(); });
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().field, QStringLiteral("op"));
}

// A participant service keeping accounts in PostgreSQL behind keel's barrier:
// POST /<account>/<op>. Tries on accounts listed in `failTries` answer 409
// after their work failed (nothing frozen, the barrier row rolled back).
class BarrierParticipant final : public HttpHandler {
public:
    BarrierParticipant(ConnectionSettings settings, QStringList failTries)
        : m_settings(std::move(settings)), m_failTries(std::move(failTries))
    {
        HttpServerOptions options;
        options.threads = 4;
        m_server = std::make_unique<HttpServer>(options, *this);
        (void)m_server->start();
    }
    ~BarrierParticipant() override { m_server->stop(); }
    QString url(const QString &account, const QString &op) const
    {
        return QStringLiteral("http://127.0.0.1:%1/%2/%3").arg(m_server->port()).arg(account, op);
    }
    HttpResponse handle(const HttpRequest &request) override
    {
        const QStringList parts = QString::fromUtf8(request.path).split(u'/', Qt::SkipEmptyParts);
        const QUrlQuery query(QString::fromUtf8(request.query));
        Result<LibpqConnection *> connection = ThreadConnections::get(m_settings);
        if (parts.size() != 2 || !connection)
            return jsonResponse(500, "{}");
        const QString account = parts.at(0);
        const QString op = query.queryItemValue(QStringLiteral("op"));
        const bool fail = op == QLatin1String("try") && m_failTries.contains(account);
        auto outcome =
            TccBarrier(**connection)
                .call(
                    query.queryItemValue(QStringLiteral("gid")),
                    query.queryItemValue(QStringLiteral("branch_id")), op, [&](LibpqConnection &c) {
                        if (fail)
                            return Status(makeError(ErrorKind::Failed, QStringLiteral("no stock")));
                        return accountWork(c, account, op);
                    });
        {
            const QMutexLocker lock(&m_mutex);
            m_seen << account + u':' + op + u':' +
                          (outcome ? barrierOutcomeName(*outcome) : QStringLiteral("failed"));
        }
        if (fail)
            return jsonResponse(409, "{\"dtm_result\":\"FAILURE\"}");
        return jsonResponse(outcome ? 200 : 500, "{}");
    }
    HttpResponse refuse(HttpRefusal) override { return jsonResponse(400, "{}"); }
    QStringList seen() const
    {
        const QMutexLocker lock(&m_mutex);
        return m_seen;
    }

private:
    ConnectionSettings m_settings;
    QStringList m_failTries;
    std::unique_ptr<HttpServer> m_server;
    mutable QMutex m_mutex;
    QStringList m_seen;
};

class TccTest : public SagaTest {
protected:
    void SetUp() override
    {
        SagaTest::SetUp();
        if (HasFatalFailure())
            return;
        ASSERT_TRUE(m_connection->exec(AccountsTable).ok());
    }
    QJsonObject transfer(const BarrierParticipant &participant)
    {
        QJsonArray branches;
        for (const QString &account : {QStringLiteral("a"), QStringLiteral("b")})
            branches.append(QJsonObject{
                {QStringLiteral("name"), account},
                {QStringLiteral("try_url"), participant.url(account, QStringLiteral("try"))},
                {QStringLiteral("confirm_url"),
                 participant.url(account, QStringLiteral("confirm"))},
                {QStringLiteral("cancel_url"), participant.url(account, QStringLiteral("cancel"))},
                {QStringLiteral("retry"), quickRetry(2)},
                {QStringLiteral("confirm_retry"), quickRetry(2)}});
        return {{QStringLiteral("name"), QStringLiteral("transfer")},
                {QStringLiteral("branches"), branches}};
    }
    QString startTcc(const QJsonObject &tcc)
    {
        HttpClient::Headers headers = auth();
        headers.append(std::pair<QByteArray, QByteArray>("Content-Type", "application/json"));
        headers.append(std::pair<QByteArray, QByteArray>("Idempotency-Key", "tcc-1"));
        const HttpReply reply = m_client->request(
            "POST", "/v1/tcc", headers, QJsonDocument(tcc).toJson(QJsonDocument::Compact));
        EXPECT_EQ(reply.status, 200) << reply.body.constData();
        const QJsonObject body = QJsonDocument::fromJson(reply.body).object();
        EXPECT_EQ(body.value(QStringLiteral("trans_type")).toString(), QStringLiteral("tcc"));
        return body.value(QStringLiteral("id")).toString();
    }
    QString accounts()
    {
        return scalar("SELECT string_agg(name || '=' || balance || '/' || frozen, ' ' ORDER BY "
                      "name) FROM tcc_accounts");
    }
};

TEST_F(TccTest, EveryTryThenEveryConfirmCommitsTheTransfer)
{
    BarrierParticipant participant(settings(), {});
    startWorker();
    const QString id = startTcc(transfer(participant));
    waitFor(id, QStringLiteral("succeeded"));
    EXPECT_EQ(accounts(), QStringLiteral("a=90/0 b=90/0"));
    EXPECT_EQ(
        participant.seen(),
        QStringList({QStringLiteral("a:try:applied"), QStringLiteral("b:try:applied"),
                     QStringLiteral("a:confirm:applied"), QStringLiteral("b:confirm:applied")}));
}

TEST_F(TccTest, AFailedTryCancelsEveryBranchTriedAndTheFailedOneRollsBackEmpty)
{
    BarrierParticipant participant(settings(), {QStringLiteral("b")});
    startWorker();
    const QString id = startTcc(transfer(participant));
    waitFor(id, QStringLiteral("compensated"));
    EXPECT_EQ(accounts(), QStringLiteral("a=100/0 b=100/0"));
    EXPECT_EQ(participant.seen(),
              QStringList({QStringLiteral("a:try:applied"), QStringLiteral("b:try:failed"),
                           QStringLiteral("b:cancel:empty_rollback"),
                           QStringLiteral("a:cancel:applied")}));
}

TEST_F(TccTest, AConfirmThatKeepsFailingIsNeverCancelledAndParksAfterItsRounds)
{
    BarrierParticipant participant(settings(), {});
    startWorker();
    QJsonObject tcc = transfer(participant);
    QJsonArray branches = tcc.value(QStringLiteral("branches")).toArray();
    QJsonObject b = branches.at(1).toObject();
    b.insert(QStringLiteral("confirm_url"), m_participant.url("/down"));
    branches.replace(1, b);
    tcc.insert(QStringLiteral("branches"), branches);
    m_participant.program("/down", {503, -1, {}, 0, -1});
    const QString id = startTcc(tcc);
    const QJsonObject parked = waitFor(id, QStringLiteral("parked"));
    EXPECT_EQ(parked.value(QStringLiteral("compensation_rounds")).toInt(), 3);
    EXPECT_EQ(m_participant.calls("/down", id), 6) << "3 rounds of 2 attempts";
    EXPECT_FALSE(participant.seen().join(u' ').contains(QLatin1String("cancel")));
    EXPECT_EQ(accounts(), QStringLiteral("a=90/0 b=100/10"));
    EXPECT_EQ(scalar("SELECT count(*) || ' ' || min(amount) FROM keel.suspense_cases"),
              QStringLiteral("1 0"));
    expectLedgerBalances();
}

} // namespace
} // namespace keel::test
