#include "core/read/AuditQuery.h"

#include "core/db/QtSqlConnections.h"

#include <QSqlQuery>
#include <QVariant>

namespace keel {

Result<AuditPage> AuditQuery::page(QSqlDatabase db, const AuditFilter &filter,
                                   std::optional<qint64> beforeSeq, int limit)
{
    QString sql =
        QStringLiteral("SELECT seq, at, actor, action, object_type, object_id, detail::text, hash "
                       "FROM keel.audit_log WHERE true");
    QVariantList binds;
    auto narrow = [&](const QString &condition, const QVariant &value) {
        sql += QStringLiteral(" AND ") + condition;
        binds << value;
    };
    if (!filter.actor.isEmpty())
        narrow(QStringLiteral("actor = ?"), filter.actor);
    if (!filter.action.isEmpty())
        narrow(QStringLiteral("action = ?"), filter.action);
    if (const QString object = filter.object.trimmed(); !object.isEmpty()) {
        const qsizetype colon = object.indexOf(QLatin1Char(':'));
        narrow(QStringLiteral("object_type = ?"), colon < 0 ? object : object.left(colon));
        if (colon >= 0)
            narrow(QStringLiteral("object_id = ?"), object.mid(colon + 1));
    }
    if (beforeSeq)
        narrow(QStringLiteral("seq < ?"), *beforeSeq);
    sql += QStringLiteral(" ORDER BY seq DESC LIMIT ?");
    binds << limit + 1; // one more tells whether another page exists

    QSqlQuery query(db);
    query.setForwardOnly(true);
    query.prepare(sql);
    for (const QVariant &value : std::as_const(binds))
        query.addBindValue(value);
    if (Status done = QtSqlConnections::exec(query); !done)
        return done.error();
    AuditPage page;
    while (query.next()) {
        if (page.entries.size() == limit) {
            page.nextBefore = page.entries.constLast().seq;
            break;
        }
        page.entries << AuditEntry{query.value(0).toLongLong(), query.value(1).toDateTime(),
                                   query.value(2).toString(),   query.value(3).toString(),
                                   query.value(4).toString(),   query.value(5).toString(),
                                   query.value(6).toString(),   query.value(7).toByteArray()};
    }
    return page;
}

Result<ExportSummary> AuditQuery::exportCsv(QSqlDatabase db, const AuditFilter &filter,
                                            const QString &filterText, QIODevice &out)
{
    constexpr int PageRows = 1000;
    CsvFile csv(out);
    if (Status said = csv.comment(QStringLiteral("keel audit trail; filter: ") + filterText); !said)
        return said.error();
    if (Status header = csv.row({QStringLiteral("seq"), QStringLiteral("at"),
                                 QStringLiteral("actor"), QStringLiteral("action"),
                                 QStringLiteral("object_type"), QStringLiteral("object_id"),
                                 QStringLiteral("detail"), QStringLiteral("hash")});
        !header)
        return header.error();
    std::optional<qint64> before;
    do {
        Result<AuditPage> slice = page(db, filter, before, PageRows);
        if (!slice)
            return slice.error();
        for (const AuditEntry &entry : std::as_const(slice->entries))
            if (Status written = csv.row({QString::number(entry.seq),
                                          entry.at.toUTC().toString(Qt::ISODateWithMs), entry.actor,
                                          entry.action, entry.objectType, entry.objectId,
                                          entry.detail, QString::fromLatin1(entry.hash.toHex())});
                !written)
                return written.error();
        before = slice->nextBefore;
    } while (before);
    return csv.summary();
}

} // namespace keel
