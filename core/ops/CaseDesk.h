#pragma once

#include "core/Result.h"

#include <QSqlDatabase>
#include <QString>

namespace keel {

// Working a suspense case through the rules of migration 0017: taking it
// (the session user becomes its owner) and adding notes with references.
// Both are audited by the database; resolving a case is a guarded action.
class CaseDesk final {
public:
    explicit CaseDesk(QSqlDatabase db) : m_db(std::move(db)) {}

    // The owner the case now has (this login).
    Result<QString> take(qint64 caseId);
    Status addNote(qint64 caseId, const QString &note, const QString &reference = {});

private:
    QSqlDatabase m_db;
};

} // namespace keel
