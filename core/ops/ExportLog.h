#pragma once

#include "core/Result.h"
#include "core/read/CsvFile.h"

#include <QSqlDatabase>

class QIODevice;

namespace keel {

// Exports of keel's records, each recorded in the audit trail by the
// database (keel.record_export): who, what, the filter, the rows and the
// file's SHA-256.
class ExportLog final {
public:
    ExportLog() = delete;

    // `what`: suspense_cases, approvals, audit_log or payments.
    static Status record(QSqlDatabase db, const QString &what, const QString &filterText,
                         const ExportSummary &summary);
    // Every proposal with its decisions, newest first.
    static Result<ExportSummary> approvalsCsv(QSqlDatabase db, QIODevice &out);
};

} // namespace keel
