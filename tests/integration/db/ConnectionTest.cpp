#include "DatabaseTest.h"

#include "core/db/ConnectionFailure.h"
#include "core/db/LibpqConnection.h"
#include "core/db/PgCursor.h"
#include "core/db/QtSqlConnections.h"
#include "core/net/LoopbackPort.h"

#include <QSqlDriver>
#include <QSqlQuery>
#include <QThread>
#include <QVariant>

#include <algorithm>

using namespace keel;
using keel::test::DatabaseTest;
using keel::test::TestCluster;

class ConnectionTest : public DatabaseTest {
protected:
    // The same server over TCP on loopback, where passwords are checked.
    ConnectionSettings overTcp(const QString &user, const QString &password) const
    {
        ConnectionSettings tcp = settings();
        tcp.set(QStringLiteral("host"), QStringLiteral("127.0.0.1"));
        tcp.set(QStringLiteral("user"), user);
        tcp.set(QStringLiteral("password"), password);
        return tcp;
    }
};

TEST_F(ConnectionTest, NumericNeverPassesThroughADouble)
{
    QSqlQuery query(db());
    ASSERT_TRUE(query.exec(
        QStringLiteral("SELECT 12345678901234567.89::numeric, 9007199254740993::bigint")));
    ASSERT_TRUE(query.next());
    // 12345678901234567.89 has no exact double; 2^53 + 1 neither.
    EXPECT_EQ(query.value(0).typeId(), QMetaType::QString);
    EXPECT_EQ(query.value(0).toString(), QStringLiteral("12345678901234567.89"));
    EXPECT_EQ(query.value(1).toLongLong(), 9007199254740993LL);
    EXPECT_NE(query.value(1).typeId(), QMetaType::Double);
}

TEST_F(ConnectionTest, EachThreadGetsItsOwnConnection)
{
    QSqlDatabase mine = db();
    QString otherName;
    QString otherPid;
    QThread *worker = QThread::create([&] {
        auto theirs = QtSqlConnections::connect(settings(), QStringLiteral("keel-test"));
        ASSERT_TRUE(theirs.ok());
        otherName = theirs->connectionName();
        QSqlQuery query(*theirs);
        query.exec(QStringLiteral("SELECT pg_backend_pid()"));
        query.next();
        otherPid = query.value(0).toString();
    });
    worker->start();
    worker->wait();
    delete worker;
    QSqlQuery query(mine);
    ASSERT_TRUE(query.exec(QStringLiteral("SELECT pg_backend_pid()")));
    query.next();
    EXPECT_NE(otherName, mine.connectionName());
    EXPECT_NE(otherPid, query.value(0).toString());
    // The worker's connection went away with its thread.
    EXPECT_FALSE(QSqlDatabase::contains(otherName));
}

TEST_F(ConnectionTest, PasswordWithQuotesAndSpacesReachesLibpqIntact)
{
    const QString role = QStringLiteral("t_pw_%1").arg(test::uniqueSuffix());
    const QString password = QStringLiteral("it's a \\secret pass");
    ASSERT_TRUE(TestCluster::instance().createLoginRole(role, {}, password).ok());
    m_roles << role;
    auto connected =
        QtSqlConnections::connect(overTcp(role, password), QStringLiteral("keel-test-pw"));
    ASSERT_TRUE(connected.ok()) << qPrintable(connected.error().message);
    QSqlQuery query(*connected);
    ASSERT_TRUE(query.exec(QStringLiteral("SELECT current_user")));
    query.next();
    EXPECT_EQ(query.value(0).toString(), role);
}

TEST_F(ConnectionTest, WrongPasswordIsAConnectionErrorThatNeverEchoesThePassword)
{
    const QString role = QStringLiteral("t_pw_%1").arg(test::uniqueSuffix());
    ASSERT_TRUE(
        TestCluster::instance().createLoginRole(role, {}, QStringLiteral("right-one")).ok());
    m_roles << role;
    auto connected = QtSqlConnections::connect(overTcp(role, QStringLiteral("wrong-one")),
                                               QStringLiteral("keel-test-pw"));
    ASSERT_FALSE(connected.ok());
    EXPECT_EQ(connected.error().kind, ErrorKind::Connection);
    EXPECT_TRUE(connected.error().message.contains(QLatin1String("password authentication failed")))
        << qPrintable(connected.error().message);
    EXPECT_FALSE(connected.error().message.contains(QLatin1String("wrong-one")));
}

TEST_F(ConnectionTest, ARefusedLoginIsToldApartFromAMissingPasswordByTheServer)
{
    const QString role = QStringLiteral("t_why_%1").arg(test::uniqueSuffix());
    ASSERT_TRUE(
        TestCluster::instance().createLoginRole(role, {}, QStringLiteral("right-one")).ok());
    m_roles << role;
    EXPECT_EQ(classifyConnectionRefusal(overTcp(role, QStringLiteral("wrong-one"))),
              ConnectionRefusal::LoginRefused);
    ConnectionSettings noDatabase = overTcp(role, QStringLiteral("right-one"));
    noDatabase.set(QStringLiteral("dbname"), QStringLiteral("no_such_database"));
    EXPECT_EQ(classifyConnectionRefusal(noDatabase), ConnectionRefusal::LoginRefused);

    ConnectionSettings withoutPassword = overTcp(role, QString());
    withoutPassword.set(QStringLiteral("passfile"), QStringLiteral("/nonexistent"));
    EXPECT_EQ(classifyConnectionRefusal(withoutPassword), ConnectionRefusal::PasswordMissing);
    auto connected = QtSqlConnections::connect(withoutPassword, QStringLiteral("keel-test-nopw"));
    ASSERT_FALSE(connected.ok());
    EXPECT_TRUE(connected.error().message.contains(QLatin1String("give the password")))
        << qPrintable(connected.error().message);
}

TEST_F(ConnectionTest, NothingListeningIsNoServerAndABadOptionIsNoAttempt)
{
    ConnectionSettings closed = overTcp(QStringLiteral("nobody"), QStringLiteral("x"));
    const int port = bindLoopback();
    ASSERT_GT(port, 0);
    closed.set(QStringLiteral("port"), QString::number(port));
    EXPECT_EQ(classifyConnectionRefusal(closed), ConnectionRefusal::NoServer);
    closed.set(QStringLiteral("sslmode"), QStringLiteral("verify-full"));
    EXPECT_TRUE(whatToCheck(ConnectionRefusal::NoServer, closed)
                    .contains(QLatin1String("sslmode=verify-full")));

    ConnectionSettings unusable = settings();
    unusable.set(QStringLiteral("sslmode"), QStringLiteral("sometimes"));
    EXPECT_EQ(classifyConnectionRefusal(unusable), ConnectionRefusal::BadParameters);
}

TEST_F(ConnectionTest, ConnectsThroughAUriWithSocketDirectory)
{
    auto parsed = ConnectionSettings::parse(settings().uri());
    ASSERT_TRUE(parsed.ok()) << qPrintable(settings().uri());
    auto connected = QtSqlConnections::connect(*parsed, QStringLiteral("keel-test-uri"));
    ASSERT_TRUE(connected.ok()) << qPrintable(connected.error().message);
    QSqlQuery query(*connected);
    ASSERT_TRUE(query.exec(QStringLiteral("SELECT current_database()")));
    query.next();
    EXPECT_EQ(query.value(0).toString(), m_database);
}

// Behind a transaction pooler, another client's session settings can be in
// force on the server connection a statement lands on; Qt's driver sets
// bytea_output to escape. Bytes read back must not depend on it.
TEST_F(ConnectionTest, ByteaReadsTheSameInEitherOutputForm)
{
    auto connection = LibpqConnection::open(settings());
    ASSERT_TRUE(connection.ok());
    const QByteArray bytes = QByteArray::fromHex("00d27f61b95c2778ff");
    for (const char *form : {"hex", "escape"}) {
        ASSERT_TRUE(connection->exec(QByteArray("SET bytea_output TO ") + form).ok());
        auto rows = connection->query("SELECT $1::bytea", {LibpqConnection::byteaParam(bytes)});
        ASSERT_TRUE(rows.ok());
        EXPECT_EQ(rows->bytea(0, 0).toHex(), bytes.toHex()) << form;
    }
}

// Statements sent unnamed (for a transaction pooler) give the same results,
// also pipelined.
TEST_F(ConnectionTest, UnnamedStatementsWorkAloneAndPipelined)
{
    ConnectionSettings pooled = settings();
    pooled.setTransactionPooled(true);
    auto connection = LibpqConnection::open(pooled);
    ASSERT_TRUE(connection.ok());
    ASSERT_TRUE(connection->exec("CREATE TABLE pooled_rows (n int)").ok());
    auto rows = connection->query("SELECT $1::int + 1", {"41"});
    ASSERT_TRUE(rows.ok());
    EXPECT_EQ(rows->value(0, 0), "42");
    connection->beginPipelined();
    for (const QByteArray n : {"1", "2", "3"})
        (void)connection->query("INSERT INTO pooled_rows VALUES ($1)", {n});
    ASSERT_TRUE(connection->commitPipelined().ok());
    EXPECT_EQ(connection->scalar("SELECT sum(n) FROM pooled_rows").value(), QStringLiteral("6"));
    EXPECT_EQ(connection->scalar("SELECT count(*) FROM pg_prepared_statements").value(),
              QStringLiteral("0"))
        << "nothing was prepared by name";
}

// Every element reaches the server as written, whatever it holds: the
// quoting is the array literal's, done on the bytes sent.
TEST_F(ConnectionTest, ATextArrayParameterArrivesElementForElement)
{
    auto connection = LibpqConnection::open(settings());
    ASSERT_TRUE(connection.ok());
    const QStringList items{QStringLiteral("ch_1"),         QString(),
                            QStringLiteral("a\\\"b"),       QStringLiteral("{x,y}"),
                            QStringLiteral("NULL"),         QStringLiteral(" spaced "),
                            QStringLiteral("支付宝交易号"), QStringLiteral("\\")};
    auto rows = connection->query(
        "SELECT n, e FROM unnest($1::text[]) WITH ORDINALITY AS u(e, n) ORDER BY n",
        {LibpqConnection::arrayParam(items)});
    ASSERT_TRUE(rows.ok()) << qPrintable(rows.error().message);
    ASSERT_EQ(rows->size(), items.size());
    for (int i = 0; i < rows->size(); ++i) {
        EXPECT_FALSE(rows->isNull(i, 1)) << i;
        EXPECT_EQ(rows->text(i, 1), items.at(i)) << i;
    }
    auto none =
        connection->query("SELECT cardinality($1::text[])", {LibpqConnection::arrayParam({})});
    ASSERT_TRUE(none.ok());
    EXPECT_EQ(none->value(0, 0), "0");
}

// scalar() on a statement that returns no rows is the caller's mistake, and
// says so; it used to report "connection lost" on a healthy connection.
TEST_F(ConnectionTest, AScalarOfAStatementWithoutRowsIsAUsageErrorNotALostConnection)
{
    auto connection = LibpqConnection::open(settings());
    ASSERT_TRUE(connection.ok());
    const Result<QString> value = connection->scalar("SET application_name = 'scalar'");
    ASSERT_FALSE(value.ok());
    EXPECT_EQ(value.error().kind, ErrorKind::Usage) << qPrintable(value.error().message);
    EXPECT_FALSE(value.error().message.contains(QLatin1String("connection lost")));
    EXPECT_EQ(connection->scalar("SELECT 1").value(), QStringLiteral("1"));
}

// A large read comes through a cursor in batches: every row once, in order,
// whether the last batch is full, part full or empty; the same with unnamed
// statements, as keel sends them behind a transaction pooler. The cursor is
// closed after, and also when the caller refuses a batch, which ends the
// reading and leaves the transaction usable.
TEST_F(ConnectionTest, ReadingInBatchesTakesEveryRowOnceInOrder)
{
    for (const bool pooled : {false, true}) {
        ConnectionSettings chosen = settings();
        chosen.setTransactionPooled(pooled);
        auto connection = LibpqConnection::open(chosen);
        ASSERT_TRUE(connection.ok());
        for (const int count : {0, 3, 8, 10}) {
            ASSERT_TRUE(connection->exec("BEGIN").ok());
            QList<int> seen;
            QList<int> batches;
            const Status read =
                readInBatches(*connection, "counted", "SELECT g FROM generate_series(1, $1::int) g",
                              {QByteArray::number(count)}, 4, [&](const PgRows &rows) {
                                  batches << rows.size();
                                  for (int i = 0; i < rows.size(); ++i)
                                      seen << int(rows.toInt64(i, 0));
                                  return Status{};
                              });
            ASSERT_TRUE(read.ok()) << qPrintable(read.error().message);
            QList<int> expected;
            for (int n = 1; n <= count; ++n)
                expected << n;
            EXPECT_EQ(seen, expected) << count << " pooled " << pooled;
            EXPECT_TRUE(
                std::all_of(batches.cbegin(), batches.cend(), [](int size) { return size <= 4; }));
            EXPECT_EQ(batches.size(), count / 4 + 1) << count;
            EXPECT_EQ(connection->scalar("SELECT count(*) FROM pg_cursors").value(),
                      QStringLiteral("0"));
            ASSERT_TRUE(connection->exec("COMMIT").ok());
        }
    }
    auto connection = LibpqConnection::open(settings());
    ASSERT_TRUE(connection.ok());
    ASSERT_TRUE(connection->exec("BEGIN").ok());
    int taken = 0;
    const Status refused = readInBatches(
        *connection, "refused", "SELECT g FROM generate_series(1, 10) g", {}, 4,
        [&](const PgRows &) {
            ++taken;
            return Status{makeError(ErrorKind::Failed, QStringLiteral("not this one"))};
        });
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().message, QStringLiteral("not this one"));
    EXPECT_EQ(taken, 1);
    EXPECT_EQ(connection->scalar("SELECT count(*) FROM pg_cursors").value(), QStringLiteral("0"));
    EXPECT_EQ(readInBatches(*connection, "counted", "SELECT 1", {}, 0,
                            [](const PgRows &) { return Status{}; })
                  .error()
                  .kind,
              ErrorKind::Usage)
        << "a batch of no rows would fetch the same row for ever";
    (void)connection->exec("ROLLBACK");
}
