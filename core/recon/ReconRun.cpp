#include "core/recon/ReconRun.h"

#include "core/db/LibpqConnection.h"
#include "core/db/PgTransaction.h"
#include "core/recon/DayLoader.h"

#include <QCryptographicHash>
#include <QHash>

#include <algorithm>
#include <utility>

namespace keel {
namespace {

// One run of a channel's day at a time, and all of it read from one snapshot.
constexpr char LockDay[] = "SELECT pg_advisory_lock(hashtext('keel.recon:' || $1), $2::int)";
constexpr char UnlockDay[] = "SELECT pg_advisory_unlock(hashtext('keel.recon:' || $1), $2::int)";

// A run reads lines of other days than its own (a reference's other
// reports), whose breaks a withdrawal cannot know to wait for: the runs of a
// channel share this lock, and a statement's withdrawal takes it alone
// (migration 0048), so that no run reads lines a withdrawal is taking away.
constexpr char ShareChannel[] =
    "SELECT pg_advisory_lock_shared(hashtext('keel.recon.runs:' || $1), 0)";
constexpr char UnshareChannel[] =
    "SELECT pg_advisory_unlock_shared(hashtext('keel.recon.runs:' || $1), 0)";

// The database writes the run and its breaks from the run's result, and opens
// the cases of a day whose lag has passed (migration 0031); the service reads
// back what became of each break.
constexpr char RecordRun[] =
    "SELECT run_id, cases_opened FROM keel.recon_record_run_in_break_order($1, $2, $3, $4)";

constexpr char BreaksOfRun[] = "SELECT id, class, kind, reference, status FROM keel.recon_breaks "
                               "WHERE channel = $1 AND business_date = $2 AND last_run_id = $3";

// Other days still holding a break for a line this run found under the
// channel's id: they judged it before keel knew the id.
constexpr char DaysHoldingBreaksOf[] =
    "SELECT DISTINCT to_char(business_date, 'YYYY-MM-DD') FROM keel.recon_breaks "
    "WHERE channel = $1 AND business_date <> $2::date AND status <> 'resolved' "
    "  AND ((kind = 'payment' AND reference = ANY($3::text[])) "
    "    OR (kind = 'refund' AND reference = ANY($4::text[])))";

constexpr int RetriesOnConflict = 3;
constexpr char SerializationFailure[] = "40001";
constexpr char DeadlockDetected[] = "40P01";

constexpr char StoredRun[] =
    "SELECT channel, to_char(business_date, 'YYYY-MM-DD'), result_sha256, "
    "       CASE WHEN snapshot IS NULL THEN 'before_v49' "
    "            WHEN pg_snapshot_xmax(snapshot) > pg_snapshot_xmax(pg_current_snapshot()) "
    "            THEN 'restored' ELSE 'as_read' END "
    "FROM keel.recon_runs WHERE id = $1";

Status readBreaks(LibpqConnection &session, ReconReport &report, const ReconOutcome &outcome)
{
    Result<PgRows> stored = session.query(
        BreaksOfRun, {report.channel.toUtf8(), report.date.toString(Qt::ISODate).toLatin1(),
                      QByteArray::number(report.runId)});
    if (!stored)
        return stored.error();
    QHash<QString, std::pair<qint64, QString>> byKey;
    for (int i = 0; i < stored->size(); ++i)
        byKey.insert(stored->text(i, 1) + u'/' + stored->text(i, 2) + u'/' + stored->text(i, 3),
                     {stored->toInt64(i, 0), stored->text(i, 4)});
    for (const ReconBreak &found : outcome.breaks) {
        const auto [id, status] =
            byKey.value(breakClassName(found.kind) + u'/' + lineKindName(found.lineKind) + u'/' +
                        found.reference);
        report.breaks.append({found, id, status});
    }
    return {};
}

// The days to reconcile again after this one: those whose money a line of
// this day belongs to, and the others holding a break for a line this day
// found under the channel's id (one judged before that was known).
Result<QList<QDate>> daysToReopen(LibpqConnection &session, const ReconReport &report,
                                  const LoadedDay &day)
{
    QList<QDate> days = day.ownersElsewhere();
    const auto &[payments, refunds] = day.renamedFrom;
    if (payments.isEmpty() && refunds.isEmpty())
        return days;
    Result<PgRows> holding = session.query(
        DaysHoldingBreaksOf,
        {report.channel.toUtf8(), report.date.toString(Qt::ISODate).toLatin1(),
         LibpqConnection::arrayParam(payments), LibpqConnection::arrayParam(refunds)});
    if (!holding)
        return holding.error();
    for (int i = 0; i < holding->size(); ++i)
        days.append(QDate::fromString(holding->text(i, 0), Qt::ISODate));
    std::sort(days.begin(), days.end());
    days.erase(std::unique(days.begin(), days.end()), days.end());
    return days;
}

// Holds a session's advisory lock for as long as it lives.
class SessionLock final {
public:
    SessionLock(LibpqConnection &session, const char *lock, const char *unlock,
                QByteArrayList params)
        : m_session(session), m_unlock(unlock), m_params(std::move(params))
    {
        Result<PgRows> locked = m_session.query(lock, m_params);
        m_status = locked ? Status{} : Status{locked.error()};
    }
    ~SessionLock()
    {
        if (m_status)
            (void)m_session.query(m_unlock, m_params);
    }
    Q_DISABLE_COPY_MOVE(SessionLock)
    const Status &status() const { return m_status; }

private:
    LibpqConnection &m_session;
    const char *m_unlock;
    QByteArrayList m_params;
    Status m_status;
};

Result<ReconReport> reconcileLocked(LibpqConnection &session, const QString &channel,
                                    const QDate &date)
{
    PgTransaction transaction(session);
    if (!transaction.begun())
        return transaction.begun().error();
    if (Status isolated = session.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
        !isolated)
        return isolated.error();
    Result<LoadedDay> day = loadReconDay(session, channel, date);
    if (!day)
        return day.error();
    const ReconOutcome outcome = matchDay(day->input);
    const QByteArray result = canonicalResult(channel, date.toString(Qt::ISODate), outcome);
    ReconReport report;
    report.channel = channel;
    report.date = date;
    report.matched = outcome.matched;
    report.resultSha256 = QCryptographicHash::hash(result, QCryptographicHash::Sha256);
    Result<PgRows> run =
        session.query(RecordRun, {channel.toUtf8(), date.toString(Qt::ISODate).toLatin1(), result,
                                  QByteArray::number(qint64(day->dayLineCount()))});
    if (!run)
        return run.error();
    report.runId = run->toInt64(0, 0);
    report.casesOpened = int(run->toInt64(0, 1));
    if (Status stored = readBreaks(session, report, outcome); !stored)
        return stored.error();
    Result<QList<QDate>> reopened = daysToReopen(session, report, *day);
    if (!reopened)
        return reopened.error();
    if (Status committed = transaction.commit(); !committed)
        return committed.error();
    report.reopened = *reopened;
    return report;
}

} // namespace

Result<ReconReport> runReconciliation(LibpqConnection &session, const QString &channel,
                                      const QDate &date)
{
    // A guarded resolution or a case closed in the workbench may commit on
    // one of the day's breaks while the run reads its snapshot: the run then
    // fails to serialize, and is run again on what is true now.
    SessionLock runs(session, ShareChannel, UnshareChannel, {channel.toUtf8()});
    if (!runs.status())
        return runs.status().error();
    const auto reconcile = [&](const QDate &day) -> Result<ReconReport> {
        SessionLock lock(session, LockDay, UnlockDay,
                         {channel.toUtf8(), QByteArray::number(QDate(2000, 1, 1).daysTo(day))});
        if (!lock.status())
            return lock.status().error();
        Result<ReconReport> report = reconcileLocked(session, channel, day);
        for (int retry = 0; retry < RetriesOnConflict && !report &&
                            (report.error().code == QLatin1String(SerializationFailure) ||
                             report.error().code == QLatin1String(DeadlockDetected));
             ++retry)
            report = reconcileLocked(session, channel, day);
        return report;
    };
    // Acceptances that have run out are open breaks again before any day runs.
    if (Result<PgRows> ended = session.query("SELECT keel.recon_expire_acceptances()"); !ended)
        return ended.error();
    Result<ReconReport> report = reconcile(date);
    if (!report)
        return report;
    // One level only: the days reopened are judged as they now stand.
    for (const QDate &owner : std::as_const(report->reopened))
        if (Result<ReconReport> again = reconcile(owner); !again)
            return again.error();
    return report;
}

Result<RunCheck> recomputeRun(LibpqConnection &session, qint64 runId)
{
    Result<PgRows> run = session.query(StoredRun, {QByteArray::number(runId)});
    if (!run)
        return run.error();
    if (run->size() == 0)
        return fieldError(QStringLiteral("run"), QStringLiteral("unknown_run"),
                          QStringLiteral("there is no reconciliation run %1").arg(runId));
    const QString channel = run->text(0, 0);
    const QDate date = QDate::fromString(run->text(0, 1), Qt::ISODate);
    PgTransaction readOnly(session);
    if (!readOnly.begun())
        return readOnly.begun().error();
    if (Status isolated =
            session.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        !isolated)
        return isolated.error();
    // A run recorded before migration 0049 kept no snapshot, and one whose
    // snapshot is ahead of this cluster's transaction counter was recorded
    // before a restore from a dump, which counts ids again: either is judged
    // on the day's data as it is now.
    const QByteArray basis = run->value(0, 3);
    const RunCheck::Basis judgedOn = basis == "as_read"    ? RunCheck::Basis::AsRead
                                     : basis == "restored" ? RunCheck::Basis::TodayAfterRestore
                                                           : RunCheck::Basis::TodayBeforeV49;
    Result<LoadedDay> day =
        loadReconDay(session, channel, date, judgedOn == RunCheck::Basis::AsRead ? runId : 0);
    if (!day)
        return day.error();
    return RunCheck{run->bytea(0, 2),
                    QCryptographicHash::hash(
                        canonicalResult(channel, date.toString(Qt::ISODate), matchDay(day->input)),
                        QCryptographicHash::Sha256),
                    judgedOn};
}

} // namespace keel
