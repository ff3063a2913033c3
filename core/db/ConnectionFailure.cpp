#include "core/db/ConnectionFailure.h"

#include <QList>
#include <QRegularExpression>
#include <QStringList>

namespace keel {
namespace {

struct Attempt {
    QString where;  // "127.0.0.1, port 5432", or empty when libpq named no address
    QString reason; // what went wrong there, continuation lines folded in
};

// libpq starts an attempt's entry at column 0 and indents its hints.
QList<Attempt> attempts(const QString &message)
{
    static const QRegularExpression at(QStringLiteral(
        "^connection to server (?:at \"([^\"]*)\"(?: \\(([^)]*)\\))?, port (\\d+)|on socket "
        "\"([^\"]*)\") failed: (.*)$"));
    QList<Attempt> found;
    for (const QString &line : message.split(u'\n', Qt::SkipEmptyParts)) {
        const bool continuation = line.startsWith(u'\t') || line.startsWith(u' ');
        if (continuation && !found.isEmpty()) {
            found.last().reason += u' ' + line.trimmed();
            continue;
        }
        const QRegularExpressionMatch match = at.match(line.trimmed());
        if (!match.hasMatch()) {
            found.append({QString(), line.trimmed()});
            continue;
        }
        // A host name resolved to an address names both; a hostaddr only the address.
        const QString address = match.captured(2).isEmpty() ? match.captured(1) : match.captured(2);
        const QString where = match.captured(4).isEmpty()
                                  ? QStringLiteral("%1, port %2").arg(address, match.captured(3))
                                  : match.captured(4);
        found.append({where, match.captured(5).trimmed()});
    }
    return found;
}

} // namespace

QString describeConnectionFailure(const QString &libpqMessage)
{
    const QList<Attempt> tried = attempts(libpqMessage.trimmed());
    if (tried.isEmpty())
        return libpqMessage.simplified();
    const Attempt &decided = tried.constLast();
    QString text = decided.where.isEmpty()
                       ? decided.reason
                       : QStringLiteral("%1 (%2)").arg(decided.reason, decided.where);
    QStringList earlier;
    for (qsizetype i = 0; i + 1 < tried.size(); ++i)
        earlier << (tried[i].where.isEmpty()
                        ? tried[i].reason
                        : QStringLiteral("%1: %2").arg(tried[i].where, tried[i].reason));
    if (!earlier.isEmpty())
        text += QStringLiteral("; also tried ") + earlier.join(QStringLiteral("; "));
    return text.simplified();
}

} // namespace keel
