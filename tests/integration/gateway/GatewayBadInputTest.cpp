#include "GatewayTest.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

using namespace keel;
using keel::test::GatewayTest;

namespace {

struct BadCase {
    const char *name;
    QByteArray contentType;
    QByteArray body;
    QByteArray key; // "-" sends none
    int status;
    const char *param; // the field the error must name ("" when none applies)
};

QJsonObject errorOf(const HttpReply &reply)
{
    return QJsonDocument::fromJson(reply.body).object().value(QStringLiteral("error")).toObject();
}

} // namespace

class GatewayBadInputTest : public GatewayTest {
protected:
    void SetUp() override
    {
        GatewayTest::SetUp();
        if (!HasFatalFailure())
            startGateway();
    }
    void expectNothingWritten()
    {
        EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QStringLiteral("0"));
        EXPECT_EQ(scalar("SELECT count(*) FROM keel.idempotency_keys"), QStringLiteral("0"));
        EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("0"));
        EXPECT_EQ(scalar("SELECT count(*) FROM keel.outbox"), QStringLiteral("0"));
    }
};

TEST_F(GatewayBadInputTest, EachBadRequestGets4xxNamingTheFieldAndWritesNothing)
{
    const QByteArray form = "application/x-www-form-urlencoded";
    const QByteArray json = "application/json";
    const QByteArray ok = "currency=usd&source=tok_visa&amount=";
    const BadCase cases[] = {
        {"malformed JSON", json, R"({"amount": 100, "currency": })", "k1", 400, ""},
        {"truncated JSON", json, R"({"amount": 100, "currency": "usd")", "k2", 400, ""},
        {"duplicate JSON keys", json,
         R"({"amount": 100, "amount": 200, "currency": "usd", "source": "tok_visa"})", "k3", 400,
         ""},
        {"trailing data after JSON", json, R"({"amount": 100} {"x": 1})", "k4", 400, ""},
        {"JSON array body", json, R"([1, 2])", "k5", 400, ""},
        {"duplicate form keys", form, "amount=100&amount=200&currency=usd&source=tok_visa", "k6",
         400, ""},
        {"unknown field", form, ok + "100&colour=blue", "k7", 400, "colour"},
        {"full-width digits", form, ok + "%EF%BC%91%EF%BC%90%EF%BC%90", "k8", 400, "amount"},
        {"arabic-indic digits", form, ok + "%D9%A1%D9%A0%D9%A0", "k9", 400, "amount"},
        {"zero amount", form, ok + "0", "k10", 400, "amount"},
        {"negative amount", form, ok + "-100", "k11", 400, "amount"},
        {"amount with a plus sign", form, ok + "%2B100", "k12", 400, "amount"},
        {"int64 overflow", form, ok + "9223372036854775808", "k13", 400, "amount"},
        {"above the currency maximum", form, ok + "999999999999999", "k14", 400, "amount"},
        {"amount as a float in JSON", json,
         R"({"amount": 100.5, "currency": "usd", "source": "tok_visa"})", "k15", 400, "amount"},
        {"amount in exponent form", json,
         R"({"amount": 1e3, "currency": "usd", "source": "tok_visa"})", "k16", 400, "amount"},
        {"decimal amount for JPY", form, "currency=jpy&source=tok_visa&amount=100.5", "k17", 400,
         "amount"},
        {"missing amount", form, "currency=usd&source=tok_visa", "k18", 400, "amount"},
        {"unknown currency", form, "currency=xyz&source=tok_visa&amount=100", "k19", 400,
         "currency"},
        {"mixed-case currency", form, "currency=Usd&source=tok_visa&amount=100", "k20", 400,
         "currency"},
        {"missing source", form, "currency=usd&amount=100", "k21", 400, "source"},
        {"capture not a boolean", form, ok + "100&capture=yes", "k22", 400, "capture"},
        {"out_trade_no with spaces", form, ok + "100&out_trade_no=a%20b", "k23", 400,
         "out_trade_no"},
        {"Idempotency-Key missing", form, ok + "100", "-", 400, "Idempotency-Key"},
        {"Idempotency-Key empty", form, ok + "100", "", 400, "Idempotency-Key"},
        {"Idempotency-Key of 256 characters", form, ok + "100", QByteArray(256, 'k'), 400,
         "Idempotency-Key"},
        {"Idempotency-Key quoted but unterminated", form, ok + "100", "\"abc", 400,
         "Idempotency-Key"},
        {"invalid UTF-8 in the form", form, ok + "100&description=%FF%FE", "k24", 400, ""},
        {"unsupported content type", "text/plain", ok + "100", "k25", 400, ""},
    };
    for (const BadCase &bad : cases) {
        SCOPED_TRACE(bad.name);
        HttpClient::Headers headers = auth();
        headers.append(std::pair<QByteArray, QByteArray>("Content-Type", bad.contentType));
        if (bad.key != "-")
            headers.append(std::pair<QByteArray, QByteArray>("Idempotency-Key", bad.key));
        const HttpReply reply = m_client->request("POST", "/v1/charges", headers, bad.body);
        EXPECT_EQ(reply.status, bad.status) << reply.body.constData();
        const QJsonObject error = errorOf(reply);
        EXPECT_EQ(error.value(QStringLiteral("type")).toString(),
                  QStringLiteral("invalid_request_error"))
            << reply.body.constData();
        EXPECT_FALSE(error.value(QStringLiteral("message")).toString().isEmpty());
        if (*bad.param) {
            EXPECT_EQ(error.value(QStringLiteral("param")).toString(),
                      QString::fromLatin1(bad.param))
                << reply.body.constData();
        }
    }
    expectNothingWritten();
}

TEST_F(GatewayBadInputTest, WrongOrMissingApiKeyIs401)
{
    const QByteArray body = "amount=100&currency=usd&source=tok_visa";
    const HttpReply missing =
        m_client->request("POST", "/v1/charges", {{"Idempotency-Key", "a"}}, body);
    EXPECT_EQ(missing.status, 401);
    const HttpReply wrong = m_client->request(
        "POST", "/v1/charges",
        {{"Authorization", "Bearer sk_test_wrong"}, {"Idempotency-Key", "a"}}, body);
    EXPECT_EQ(wrong.status, 401);
    EXPECT_EQ(errorOf(wrong).value(QStringLiteral("code")).toString(),
              QStringLiteral("api_key_invalid"));
    expectNothingWritten();
}

TEST_F(GatewayBadInputTest, OversizedBodyIs413AndOversizedHeadersAre431)
{
    const QByteArray big =
        "amount=100&currency=usd&source=tok_visa&description=" + QByteArray(70000, 'x');
    const HttpReply tooBig = post("/v1/charges", big, "big");
    EXPECT_EQ(tooBig.status, 413);
    HttpClient fresh(QStringLiteral("127.0.0.1"), m_gateway->port());
    const HttpReply headers = fresh.request(
        "POST", "/v1/charges", auth() + HttpClient::Headers{{"X-Padding", QByteArray(20000, 'p')}},
        "amount=100&currency=usd&source=tok_visa");
    EXPECT_EQ(headers.status, 431);
    HttpClient garbage(QStringLiteral("127.0.0.1"), m_gateway->port());
    EXPECT_EQ(garbage.raw("THIS IS NOT HTTP\r\n\r\n").status, 400);
    expectNothingWritten();
}

namespace {

struct EarlyAnswer {
    bool sentWhole = false; // every byte of the body went out without an error
    QByteArray answer;      // what came back (empty if the connection was reset)
};

// Sends a request announcing `bodyBytes` and then the body itself, in full,
// as a client that does not wait for an early answer does (most HTTP
// libraries report only the failed write when the server resets).
EarlyAnswer sendWholeBodyThenRead(int port, qint64 bodyBytes)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval timeout{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0) {
        ::close(fd);
        return {};
    }
    const QByteArray head = "POST /v1/charges HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                            "Content-Type: application/x-www-form-urlencoded\r\n"
                            "Content-Length: " +
                            QByteArray::number(bodyBytes) + "\r\n\r\n";
    bool sending = ::send(fd, head.constData(), size_t(head.size()), MSG_NOSIGNAL) > 0;
    const QByteArray chunk(64 * 1024, 'x');
    for (qint64 sent = 0; sending && sent < bodyBytes; sent += chunk.size())
        sending = ::send(fd, chunk.constData(), size_t(chunk.size()), MSG_NOSIGNAL) > 0;
    ::shutdown(fd, SHUT_WR);
    QByteArray answer;
    char buffer[4096];
    for (ssize_t got; (got = ::recv(fd, buffer, sizeof buffer, 0)) > 0;)
        answer.append(buffer, qsizetype(got));
    ::close(fd);
    return {sending, answer};
}

} // namespace

// The 413 must reach a client that keeps sending its oversized body: closing
// with unread data would reset the connection and lose the answer.
TEST_F(GatewayBadInputTest, A413ReachesAClientStillSendingItsBodyEveryTime)
{
    for (int attempt = 0; attempt < 10; ++attempt) {
        const EarlyAnswer early = sendWholeBodyThenRead(m_gateway->port(), 32 * 1024 * 1024);
        EXPECT_TRUE(early.sentWhole) << "attempt " << attempt << ": the connection was reset";
        ASSERT_TRUE(early.answer.startsWith("HTTP/1.1 413"))
            << "attempt " << attempt << ": " << early.answer.left(80).constData();
        EXPECT_TRUE(early.answer.contains("\"type\":\"invalid_request_error\""))
            << early.answer.constData();
    }
    expectNothingWritten();
}

// SQL and format-string fragments in every place a client can put text:
// path ids and list parameters get the normal 404 or 400, fields that are
// checked get a 4xx naming nothing of the database, free text is stored as
// written, and every table is still there afterwards.
TEST_F(GatewayBadInputTest, InjectionAttemptsInEveryParameterChangeNothing)
{
    const QByteArrayList payloads{"' OR '1'='1",
                                  "1; DROP TABLE keel.charges; --",
                                  "ch_1' UNION SELECT api_key_hash FROM keel.merchants --",
                                  "$1",
                                  "%s%s%n",
                                  "\\'",
                                  "\")) OR ((\"1"};
    int created = 0;
    for (const QByteArray &payload : payloads) {
        const QByteArray encoded = QUrl::toPercentEncoding(QString::fromUtf8(payload));
        const QByteArrayList paths{QByteArray("/v1/charges/") + encoded,
                                   QByteArray("/v1/charges/ch_") + encoded + "/capture",
                                   QByteArray("/v1/refunds/") + encoded,
                                   QByteArray("/v1/sagas/") + encoded};
        for (const QByteArray &path : paths)
            EXPECT_EQ(m_client->request("GET", path, auth()).status, 404) << path.constData();
        const QByteArrayList queries{QByteArray("limit=") + encoded,
                                     QByteArray("starting_after=") + encoded,
                                     QByteArray("ending_before=") + encoded};
        for (const QByteArray &query : queries)
            EXPECT_EQ(get("/v1/charges?" + query).status / 100, 4) << query.constData();
        for (const char *field : {"amount", "currency", "source", "capture"}) {
            QByteArrayList pairs{"amount=100", "currency=usd", "source=tok_visa"};
            pairs.removeIf([&](const QByteArray &pair) { return pair.startsWith(field); });
            pairs << QByteArray(field) + '=' + encoded;
            const QByteArray form = pairs.join('&');
            const HttpReply refused = post("/v1/charges", form, "inj-" + QByteArray(field));
            EXPECT_EQ(refused.status / 100, 4) << field << ": " << payload.constData();
            // A Stripe-shaped refusal of the request, never a database error.
            EXPECT_EQ(errorOf(refused).value(QStringLiteral("type")).toString(),
                      QStringLiteral("invalid_request_error"))
                << refused.body.constData();
        }
        const HttpReply stored =
            post("/v1/charges", "amount=100&currency=usd&source=tok_visa&description=" + encoded,
                 "inj-description-" + QByteArray::number(created));
        ASSERT_EQ(stored.status, 200) << stored.body.constData();
        ++created;
        EXPECT_EQ(QJsonDocument::fromJson(stored.body)
                      .object()
                      .value(QStringLiteral("description"))
                      .toString()
                      .toUtf8(),
                  payload);
    }
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QString::number(created));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.merchants"), QStringLiteral("1"));
}

TEST_F(GatewayBadInputTest, WrongMethodAndUnknownPath)
{
    EXPECT_EQ(m_client->request("DELETE", "/v1/charges", auth()).status, 405);
    EXPECT_EQ(m_client->request("GET", "/v1/nothing", auth()).status, 404);
    EXPECT_EQ(m_client->request("GET", "/v1/charges/ch_doesnotexist", auth()).status, 404);
}
