// LISTEN across a failover of a real pg_auto_failover formation: the
// console's live updates (and the worker's and relay's wake-ups) listen on a
// connection of their own through a multi-host DSN. When the primary is
// failed over, the listener sees its connection go, reconnects to the new
// primary by itself, listens again, and the next notification reaches it.

#include "FailoverCluster.h"
#include "QtPrinters.h"
#include "ServerAccountAccess.h"
#include "WaitUntil.h"

#include "core/db/ChangeListener.h"
#include "core/db/LibpqConnection.h"

#include <QMutex>
#include <QTemporaryDir>

#include <gtest/gtest.h>

namespace keel::test {
namespace {

TEST(FailoverListenTest, AListenerListensAgainOnTheNewPrimaryAfterAFailover)
{
    ASSERT_TRUE(FailoverCluster::available())
        << "pg_autoctl is missing (packaging/install-deps installs postgresql-15-auto-failover)";
    QTemporaryDir directory;
    ASSERT_TRUE(directory.isValid());
    letServerAccountThrough(directory.path());
    auto formation = FailoverCluster::start(directory.path());
    ASSERT_TRUE(formation.ok()) << qPrintable(formation.error().message);
    const ConnectionSettings settings = (*formation)->settings(QStringLiteral("keel"));

    QMutex mutex;
    QStringList payloads;
    int drops = 0;
    bool listening = false;
    ChangeListener listener(settings, {ChangeListener::metricsChannel()},
                            {[&](const QString &, const QString &payload) {
                                 const QMutexLocker lock(&mutex);
                                 payloads << payload;
                             },
                             [&](bool now, const QString &) {
                                 const QMutexLocker lock(&mutex);
                                 drops += listening && !now ? 1 : 0;
                                 listening = now;
                             }});
    listener.start();
    // Notifies on whichever node is primary now, until the listener hears it.
    const auto heard = [&](const QByteArray &payload) {
        return waitUntil(
            [&] {
                if (auto primary = LibpqConnection::open(settings))
                    (void)primary->exec("NOTIFY keel_metrics, '" + payload + "'");
                const QMutexLocker lock(&mutex);
                return payloads.contains(QString::fromLatin1(payload));
            },
            60000);
    };
    ASSERT_TRUE(heard("before"));

    const int before = (*formation)->primaryPort();
    ASSERT_TRUE((*formation)->failOver().ok());
    ASSERT_TRUE(waitUntil(
        [&] {
            const int now = (*formation)->primaryPort();
            return now != 0 && now != before;
        },
        60000))
        << "the secondary was never promoted";
    EXPECT_TRUE(heard("after")) << "the listener did not listen again on the new primary";
    const QMutexLocker lock(&mutex);
    EXPECT_GE(drops, 1) << "the listener never saw its connection go";
    EXPECT_TRUE(listening);
    RecordProperty("primary_before", before);
}

} // namespace
} // namespace keel::test
