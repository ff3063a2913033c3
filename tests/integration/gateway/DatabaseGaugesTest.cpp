// The gateway's /metrics carries the gauges of the database's state, whichever
// process does the work: in a deployment the worker and the relay run apart,
// and the gateway is what Prometheus scrapes (packaging/prometheus).

#include "GatewayTest.h"

#include <gtest/gtest.h>

namespace {

class DatabaseGaugesTest : public keel::test::GatewayTest {};

TEST_F(DatabaseGaugesTest, TheGatewayReportsTheOutboxAndCasesPastTheirDeadline)
{
    startGateway();
    // A charge leaves an event no relay (there is none here) has published.
    const keel::HttpReply charged =
        post("/v1/charges", "amount=1999&currency=usd&source=tok_visa", "gauges-1");
    ASSERT_EQ(charged.status, 200) << charged.body.constData();
    scalar("INSERT INTO keel.suspense_cases (amount, reason, opened_at) VALUES "
           "(0, 'unmatched line, long ago', now() - interval '30 days'), "
           "(0, 'unmatched line, today', now())");
    m_gateway->maintain();
    const QByteArray metrics = m_client->request("GET", "/metrics").body;
    EXPECT_TRUE(metrics.contains("\nkeel_suspense_cases_past_deadline 1\n")) << metrics.constData();
    EXPECT_FALSE(metrics.contains("\nkeel_outbox_backlog 0\n")) << metrics.constData();
    EXPECT_TRUE(metrics.contains("\nkeel_sagas_stuck 0\n"));
    EXPECT_TRUE(metrics.contains("\nkeel_payments_in_doubt_oldest_seconds 0\n"))
        << metrics.constData();
}

// A payment whose answer the reconciler cannot get (a channel down, a
// reverse never answered) is counted in how long the oldest has waited,
// refunds included, so that an alert can page before a customer calls.
TEST_F(DatabaseGaugesTest, TheGatewayReportsHowLongTheOldestPaymentHasBeenInDoubt)
{
    startGateway();
    const keel::HttpReply charged =
        post("/v1/charges", "amount=1999&currency=usd&source=tok_visa", "gauges-2");
    ASSERT_EQ(charged.status, 200) << charged.body.constData();
    scalar("UPDATE keel.payment_state SET state = 'Authorizing', "
           "updated_at = now() - interval '2 hours'");
    m_gateway->maintain();
    QByteArray metrics = m_client->request("GET", "/metrics").body;
    const qsizetype at = metrics.indexOf("\nkeel_payments_in_doubt_oldest_seconds ");
    ASSERT_GE(at, 0) << metrics.constData();
    const qint64 seconds = metrics.mid(at).split('\n').value(1).split(' ').value(1).toLongLong();
    EXPECT_GE(seconds, 7200);
    EXPECT_LT(seconds, 7300);

    scalar("UPDATE keel.payment_state SET state = 'Captured'");
    m_gateway->maintain();
    metrics = m_client->request("GET", "/metrics").body;
    EXPECT_TRUE(metrics.contains("\nkeel_payments_in_doubt_oldest_seconds 0\n"))
        << metrics.constData();
}

} // namespace
