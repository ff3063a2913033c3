#pragma once

#include "core/Result.h"
#include "core/statement/StatementLine.h"

#include <QByteArray>
#include <QList>
#include <QStringList>

namespace keel {

class LibpqConnection;

struct ImportedStatement {
    qint64 id = 0;
    int lines = 0;
    bool alreadyImported = false; // the same file (by SHA-256) was stored before
    QStringList days;             // the channel's business days its lines fall on, to run
};

// Stores a statement's lines in one transaction, or nothing. A file stored
// before under the same channel is recognised by its SHA-256 and not stored
// again.
Result<ImportedStatement> storeStatement(LibpqConnection &session, const QString &channel,
                                         StatementFormat format, const QByteArray &fileBytes,
                                         const QList<StatementLine> &lines);

} // namespace keel
