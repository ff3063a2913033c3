#include "core/runtime/FailureLog.h"
#include "core/ServiceLog.h"

#include <QStringList>

#include <gtest/gtest.h>

namespace keel::test {
namespace {

// Collects what core logs while it lives, then puts the previous sink back.
class CollectedLog {
public:
    CollectedLog()
        : m_previous(ServiceLog::setSink([this](ServiceLog::Level level, const QString &line) {
              (level == ServiceLog::Level::Warning ? warnings : infos) << line;
          }))
    {}
    ~CollectedLog() { ServiceLog::setSink(m_previous); }
    Q_DISABLE_COPY_MOVE(CollectedLog)

    QStringList warnings;
    QStringList infos;

private:
    ServiceLog::Sink m_previous;
};

Status failure(const char *code)
{
    return codedError(ErrorKind::Failed, QString::fromLatin1(code),
                      QStringLiteral("the sweep could not run"));
}

TEST(FailureLogTest, TheFirstFailureOfARunIsLoggedTheRepeatsAreCountedAndTheRecoveryIsLoggedOnce)
{
    CollectedLog log;
    FailureLog failures;
    EXPECT_TRUE(failures.note(QStringLiteral("idempotency sweep"), failure("57P01")));
    EXPECT_FALSE(failures.note(QStringLiteral("idempotency sweep"), failure("57P01")));
    EXPECT_FALSE(failures.note(QStringLiteral("idempotency sweep"), failure("57P01")));
    EXPECT_EQ(failures.consecutiveFailures(QStringLiteral("idempotency sweep")), 3);
    ASSERT_EQ(log.warnings.size(), 1);
    EXPECT_EQ(log.warnings.first(),
              QStringLiteral("keel: idempotency sweep failed (57P01): the sweep could not run"));

    EXPECT_TRUE(failures.note(QStringLiteral("idempotency sweep"), Status()));
    EXPECT_FALSE(failures.note(QStringLiteral("idempotency sweep"), Status()));
    EXPECT_EQ(log.infos, QStringList{QStringLiteral(
                             "keel: idempotency sweep works again after 3 failed passes")});
    EXPECT_EQ(failures.consecutiveFailures(QStringLiteral("idempotency sweep")), 0);
}

TEST(FailureLogTest, EachTaskHasItsOwnRun)
{
    CollectedLog log;
    FailureLog failures;
    EXPECT_TRUE(failures.note(QStringLiteral("reconciler"), failure("40001")));
    EXPECT_TRUE(failures.note(QStringLiteral("outbox fold"), failure("40001")));
    EXPECT_EQ(log.warnings.size(), 2);
}

TEST(ServiceLogTest, WithoutASinkLinesAreDroppedAndSettingOneReturnsThePrevious)
{
    const ServiceLog::Sink before = ServiceLog::setSink({});
    ServiceLog::warning(QStringLiteral("nobody hears this"));
    {
        CollectedLog log;
        ServiceLog::warning(QStringLiteral("heard"));
        EXPECT_EQ(log.warnings, QStringList{QStringLiteral("heard")});
    }
    EXPECT_FALSE(ServiceLog::setSink(before));
}

} // namespace
} // namespace keel::test
