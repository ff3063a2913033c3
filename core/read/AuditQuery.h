#pragma once

#include "core/Result.h"
#include "core/read/CsvFile.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QSqlDatabase>
#include <QString>

#include <optional>

namespace keel {

// What the Audit view narrows the trail to; empty fields match everything.
struct AuditFilter {
    QString actor;  // exact login
    QString action; // exact action ("propose", "approve", ...)
    QString object; // "TYPE" or "TYPE:ID"
};

struct AuditEntry {
    qint64 seq = 0;
    QDateTime at;
    QString actor;
    QString action;
    QString objectType;
    QString objectId;
    QString detail; // the jsonb, as text
    QByteArray hash;
};

struct AuditPage {
    QList<AuditEntry> entries;        // newest first
    std::optional<qint64> nextBefore; // the seq to continue below, if there is more
};

// The auditors' read of keel.audit_log: newest first, a page at a time by
// seq, so any depth costs the same.
class AuditQuery final {
public:
    AuditQuery() = delete;

    static Result<AuditPage> page(QSqlDatabase db, const AuditFilter &filter,
                                  std::optional<qint64> beforeSeq, int limit);
    // The whole trail the filter finds, newest first, with `filterText` at
    // the top (times ISO 8601 UTC, hashes hex). The caller records the export.
    static Result<ExportSummary> exportCsv(QSqlDatabase db, const AuditFilter &filter,
                                           const QString &filterText, QIODevice &out);
};

} // namespace keel
