#pragma once

#include "core/Result.h"
#include "core/statement/StatementReader.h"

#include <QByteArray>
#include <QList>
#include <QStringList>

namespace keel {

class CurrencyTable;
class LibpqConnection;

struct ImportedStatement {
    qint64 id = 0;
    int lines = 0;
    bool alreadyImported = false; // the same file (by SHA-256) was stored before
    QStringList days;             // the channel's business days its lines fall on, to run
};

// Reads a statement and stores it whole in one transaction, or nothing: the
// lines go to the server as they are read, so that storing them overlaps
// reading them, and a refusal found at the end (totals that do not tie)
// abandons what was sent. A file stored before under the same channel is
// recognised by its SHA-256 and neither read nor stored again.
Result<ImportedStatement> importStatement(LibpqConnection &session, const QString &channel,
                                          const StatementFile &file,
                                          const CurrencyTable &currencies);

} // namespace keel
