#pragma once

#include "core/Result.h"
#include "core/recon/Matching.h"

#include <QDate>

namespace keel {

class LibpqConnection;

// A break as a run left it: its stable id and where it is in its life.
struct StoredBreak {
    ReconBreak found;
    qint64 id = 0;
    QString status; // pending, new, persisting
};

struct ReconReport {
    qint64 runId = 0;
    QString channel;
    QDate date;
    int matched = 0;
    QList<StoredBreak> breaks;
    QByteArray resultSha256; // of canonicalResult()
    int casesOpened = 0;     // by breaks still found after the settlement lag
    // Earlier days a line of this one belongs to (keel moved the money then),
    // reconciled again after this one.
    QList<QDate> reopened;
};

// Reconciles one channel's business day: the channel's statement lines
// against keel's postings, breaks kept across runs (the same break keeps its
// id; one a later run no longer finds is resolved). Once the day's settlement
// lag has passed, each break still found opens a suspense case, once, parking
// what the channel holds that keel did not book. The run, with its result's
// SHA-256, goes on the audit trail. A line of the day that belongs to another
// day's money reopens that day, which is reconciled again after this one.
Result<ReconReport> runReconciliation(LibpqConnection &session, const QString &channel,
                                      const QDate &date);

struct RunCheck {
    QByteArray recorded;   // the run's result SHA-256
    QByteArray recomputed; // what the day's data the run read gives now
    // What it was recomputed on: what the run read, or today's data (a run
    // recorded before schema v49, or before a restore from a dump).
    enum class Basis { AsRead, TodayBeforeV49, TodayAfterRestore };
    Basis basis = Basis::AsRead;
    bool holds() const { return recorded == recomputed; }
};

// Recomputes a stored run without writing anything, from the statement lines
// and postings its snapshot saw (migration 0049): what it parked, and what
// was imported or booked after it, do not change it.
Result<RunCheck> recomputeRun(LibpqConnection &session, qint64 runId);

} // namespace keel
