#include "ui/RecordExport.h"

#include "core/ops/ExportLog.h"
#include "ui/QueryWorker.h"

#include <QCoreApplication>
#include <QFileDialog>
#include <QSaveFile>

namespace keel {

void RecordExport::toFile(QueryWorker *worker, QObject *receiver, const QString &fileName,
                          const QString &what, const QString &filterText, Writer write, Done done)
{
    worker->submit<ExportSummary>(
        receiver,
        [fileName, what, filterText,
         write = std::move(write)](QSqlDatabase db) -> Result<ExportSummary> {
            // A file that could not be recorded is not left behind.
            QSaveFile file(fileName);
            if (!file.open(QIODevice::WriteOnly))
                return makeError(
                    ErrorKind::Failed,
                    QStringLiteral("cannot write %1: %2").arg(fileName, file.errorString()));
            Result<ExportSummary> written = write(db, file);
            if (!written)
                return written.error();
            if (Status recorded = ExportLog::record(db, what, filterText, *written); !recorded)
                return recorded.error();
            if (!file.commit())
                return makeError(
                    ErrorKind::Failed,
                    QStringLiteral("cannot write %1: %2").arg(fileName, file.errorString()));
            return written;
        },
        [done = std::move(done), fileName](const Result<ExportSummary> &written) {
            if (!written) {
                done(false, QCoreApplication::translate("keel::RecordExport", "Export failed: %1")
                                .arg(written.error().message));
                return;
            }
            done(true, QCoreApplication::translate(
                           "keel::RecordExport",
                           "Exported %1 row(s) to %2 (SHA-256 %3), recorded in the audit trail.")
                           .arg(written->rows)
                           .arg(fileName, written->sha256));
        });
}

QString RecordExport::askFileName(QWidget *parent, const QString &suggestedName)
{
    return QFileDialog::getSaveFileName(
        parent, QCoreApplication::translate("keel::RecordExport", "Export"), suggestedName,
        QCoreApplication::translate("keel::RecordExport", "CSV (*.csv)"));
}

} // namespace keel
