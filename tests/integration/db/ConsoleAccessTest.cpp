// What the console offers follows the session's grants, and the database
// refuses what it leaves out; change notifications reach a listener and
// survive a dropped connection.
#include "MigratedDatabaseTest.h"

#include "core/db/ChangeListener.h"
#include "core/db/LibpqConnection.h"
#include "core/db/QtSqlConnections.h"
#include "core/db/SessionInfo.h"
#include "core/metrics/RollupBuffer.h"
#include "core/read/HistoryQuery.h"
#include "core/read/OverviewQuery.h"
#include "devkit/sim/HistorySeeder.h"

#include <QDateTime>
#include <QSqlQuery>

#include <condition_variable>
#include <mutex>

using namespace keel;
using keel::test::MigratedDatabaseTest;

namespace {

class ConsoleAccessTest : public MigratedDatabaseTest {
protected:
    // A fresh Qt SQL connection as a new login in `groupRole` (empty: no keel role).
    QSqlDatabase connectAs(const QString &groupRole)
    {
        const ConnectionSettings login =
            groupRole.isEmpty() ? loginAs(QStringLiteral("pg_monitor")) : loginAs(groupRole);
        auto db = QtSqlConnections::connect(login, QStringLiteral("keel-test-") + groupRole);
        EXPECT_TRUE(db.ok()) << qPrintable(db.error().message);
        return db.ok() ? *db : QSqlDatabase();
    }

    SessionInfo sessionOf(QSqlDatabase db)
    {
        auto session = SessionInfo::load(db);
        EXPECT_TRUE(session.ok()) << qPrintable(session.error().message);
        return session.ok() ? *session : SessionInfo();
    }

    QString seedOneCharge()
    {
        auto session = LibpqConnection::open(settings());
        EXPECT_TRUE(session.ok());
        auto seeded = HistorySeeder::seed(*session, {50, 2, 1});
        EXPECT_TRUE(seeded.ok()) << qPrintable(seeded.error().message);
        QSqlQuery query(db());
        EXPECT_TRUE(query.exec(
            QStringLiteral("SELECT c.public_id FROM keel.charges c JOIN keel.payment_state s "
                           "ON s.charge_id = c.id WHERE s.state = 'Refunded' LIMIT 1")));
        EXPECT_TRUE(query.next());
        return query.value(0).toString();
    }
};

// Waits for things a listener thread reports.
struct Inbox {
    std::mutex lock;
    std::condition_variable changed;
    QStringList notifications;
    QList<bool> states;

    template <typename Predicate>
    bool waitFor(Predicate ready, int milliseconds = 10000)
    {
        std::unique_lock<std::mutex> locked(lock);
        return changed.wait_for(locked, std::chrono::milliseconds(milliseconds),
                                [&] { return ready(); });
    }
};

} // namespace

TEST_F(ConsoleAccessTest, EachRoleSeesWhatItsGrantsAllow)
{
    const SessionInfo auditor = sessionOf(connectAs(QStringLiteral("keel_auditor")));
    EXPECT_TRUE(auditor.canSeeDashboards());
    EXPECT_TRUE(auditor.canSeeSuspense());
    EXPECT_TRUE(auditor.canSeeHistory());
    EXPECT_FALSE(auditor.canProposeActions());
    EXPECT_FALSE(auditor.canApproveActions());
    EXPECT_EQ(HistoryQuery::timelineSourcesFor(auditor), HistoryQuery::timelineSources());
    EXPECT_FALSE(auditor.canRead(QStringLiteral("merchant_secrets")));

    const SessionInfo sre = sessionOf(connectAs(QStringLiteral("keel_sre")));
    EXPECT_TRUE(sre.canSeeDashboards());
    EXPECT_TRUE(sre.canSeeInFlight());
    EXPECT_FALSE(sre.canSeeSuspense()); // no ledger access: SREs move no money
    EXPECT_FALSE(sre.canSeeHistory());
    EXPECT_TRUE(sre.canProposeActions()); // resends and retries; the database refuses money kinds

    const SessionInfo operatorSession = sessionOf(connectAs(QStringLiteral("keel_operator")));
    EXPECT_TRUE(operatorSession.canSeeHistory());
    EXPECT_TRUE(operatorSession.canProposeActions());
    EXPECT_FALSE(operatorSession.canApproveActions());
    const QStringList operatorSources = HistoryQuery::timelineSourcesFor(operatorSession);
    EXPECT_FALSE(operatorSources.contains(QStringLiteral("idempotency")));
    // A case's money trail includes its outbox messages (migration 0016).
    EXPECT_TRUE(operatorSources.contains(QStringLiteral("outbox")));
    EXPECT_TRUE(operatorSources.contains(QStringLiteral("ledger")));

    const SessionInfo approver = sessionOf(connectAs(QStringLiteral("keel_approver")));
    EXPECT_TRUE(approver.canApproveActions());
    EXPECT_FALSE(approver.canProposeActions());

    const SessionInfo nobody = sessionOf(connectAs(QString()));
    EXPECT_TRUE(nobody.keelRoles.isEmpty());
    EXPECT_FALSE(nobody.canSeeDashboards());
    EXPECT_FALSE(nobody.canSeeHistory());
}

TEST_F(ConsoleAccessTest, TheOverviewLeavesOutWhatTheRoleMayNotReadAndTheDatabaseRefusesIt)
{
    QSqlDatabase db = connectAs(QStringLiteral("keel_sre"));
    const SessionInfo sre = sessionOf(db);
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    auto scoped = OverviewQuery::load(db, 3600, now,
                                      {sre.canSeeSuspense(), sre.canSeeInFlight(), true,
                                       sre.canRead(QStringLiteral("recon_breaks"))});
    ASSERT_TRUE(scoped.ok()) << qPrintable(scoped.error().message);
    EXPECT_FALSE(scoped->suspenseShown);
    EXPECT_TRUE(scoped->inFlightShown);
    EXPECT_FALSE(scoped->reconShown) << "an SRE does not read reconciliation breaks";

    // Asking anyway is the database's to refuse, not the console's.
    auto everything = OverviewQuery::load(db, 3600, now, {true, true});
    ASSERT_FALSE(everything.ok());
    EXPECT_TRUE(everything.error().message.contains(QLatin1String("permission denied")))
        << qPrintable(everything.error().message);
}

TEST_F(ConsoleAccessTest, AnOperatorsTimelineSkipsTheTablesItCannotRead)
{
    const QString chargeId = seedOneCharge();
    ASSERT_FALSE(chargeId.isEmpty());
    QSqlDatabase db = connectAs(QStringLiteral("keel_operator"));
    const SessionInfo session = sessionOf(db);

    auto refused = HistoryQuery::timeline(db, chargeId);
    ASSERT_FALSE(refused.ok());
    EXPECT_TRUE(refused.error().message.contains(QLatin1String("permission denied")));

    auto entries = HistoryQuery::timeline(db, chargeId, HistoryQuery::timelineSourcesFor(session));
    ASSERT_TRUE(entries.ok()) << qPrintable(entries.error().message);
    QStringList sources;
    for (const TimelineEntry &entry : *entries)
        sources << entry.source;
    EXPECT_TRUE(sources.contains(QStringLiteral("state")));
    EXPECT_TRUE(sources.contains(QStringLiteral("ledger")));
    EXPECT_FALSE(sources.contains(QStringLiteral("outbox")));
}

TEST_F(ConsoleAccessTest, RollupFlushesNotifyListenersWhoReconnectAfterADrop)
{
    Inbox inbox;
    ChangeListener::Callbacks callbacks;
    callbacks.notified = [&](const QString &channel, const QString &payload) {
        std::lock_guard<std::mutex> locked(inbox.lock);
        inbox.notifications << channel + u'/' + payload;
        inbox.changed.notify_all();
    };
    callbacks.stateChanged = [&](bool listening, const QString &) {
        std::lock_guard<std::mutex> locked(inbox.lock);
        inbox.states << listening;
        inbox.changed.notify_all();
    };
    ChangeListener listener(loginAs(QStringLiteral("keel_sre")), {ChangeListener::metricsChannel()},
                            std::move(callbacks));
    listener.start();
    ASSERT_TRUE(inbox.waitFor([&] { return inbox.states.contains(true); }));

    auto writer = LibpqConnection::open(settings());
    ASSERT_TRUE(writer.ok());
    RollupBuffer::instance().add(QStringLiteral("idempotency.new"));
    ASSERT_TRUE(RollupBuffer::instance().flush(*writer, QStringLiteral("test-a")).ok());
    ASSERT_TRUE(inbox.waitFor(
        [&] { return inbox.notifications.contains(QStringLiteral("keel_metrics/test-a")); }));

    // The server ends the listener's session; it comes back by itself.
    ASSERT_TRUE(writer
                    ->exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                           "WHERE application_name = 'keel-console-listen' AND datname = "
                           "current_database()")
                    .ok());
    ASSERT_TRUE(inbox.waitFor([&] {
        const qsizetype down = inbox.states.indexOf(false);
        return down > 0 && inbox.states.indexOf(true, down) > down;
    })) << "states seen: "
        << inbox.states.size();
    RollupBuffer::instance().add(QStringLiteral("idempotency.new"));
    ASSERT_TRUE(RollupBuffer::instance().flush(*writer, QStringLiteral("test-b")).ok());
    EXPECT_TRUE(inbox.waitFor(
        [&] { return inbox.notifications.contains(QStringLiteral("keel_metrics/test-b")); }));
    listener.stop();
}
