#include "core/ops/CaseDesk.h"

#include "core/db/QtSqlConnections.h"

#include <QSqlQuery>
#include <QVariant>

namespace keel {
namespace {

constexpr int MaxNote = 4000;
constexpr int MaxReference = 200;

} // namespace

Result<QString> CaseDesk::take(qint64 caseId)
{
    QSqlQuery query(m_db);
    query.prepare(QStringLiteral("SELECT (keel.take_case(?)).owner"));
    query.addBindValue(caseId);
    if (Status done = QtSqlConnections::exec(query); !done)
        return done.error();
    return query.next() ? query.value(0).toString() : QString();
}

Status CaseDesk::addNote(qint64 caseId, const QString &note, const QString &reference)
{
    const QString text = note.trimmed();
    if (text.isEmpty() || text.size() > MaxNote)
        return fieldError(QStringLiteral("note"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("note: write 1 to %1 characters").arg(MaxNote));
    if (reference.size() > MaxReference)
        return fieldError(QStringLiteral("reference"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("reference: at most %1 characters").arg(MaxReference));
    QSqlQuery query(m_db);
    query.prepare(QStringLiteral(
        "INSERT INTO keel.suspense_case_notes (case_id, note, reference) VALUES (?, ?, ?)"));
    query.addBindValue(caseId);
    query.addBindValue(text);
    query.addBindValue(reference.trimmed().isEmpty() ? QVariant() : QVariant(reference.trimmed()));
    return QtSqlConnections::exec(query);
}

} // namespace keel
