#pragma once

#include "core/read/CsvFile.h"

#include <QSqlDatabase>
#include <QString>

#include <functional>

class QIODevice;
class QObject;
class QWidget;

namespace keel {

class QueryWorker;

// Writes an export to a file on the query worker's thread and has the
// database record it in the audit trail (who, what, filter, rows, SHA-256);
// `done` gets the sentence to show, and whether it all worked.
struct RecordExport {
    using Writer = std::function<Result<ExportSummary>(QSqlDatabase, QIODevice &)>;
    using Done = std::function<void(bool ok, const QString &message)>;

    static void toFile(QueryWorker *worker, QObject *receiver, const QString &fileName,
                       const QString &what, const QString &filterText, Writer write, Done done);
    // Where the user wants it saved; empty if they cancelled.
    static QString askFileName(QWidget *parent, const QString &suggestedName);
};

} // namespace keel
