#include "core/db/ConnectionFailure.h"

#include "core/db/ConnectionSettings.h"

#include <QList>
#include <QRegularExpression>
#include <QStringList>

#include <libpq-fe.h>

#include <memory>

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

ConnectionRefusal classifyConnectionRefusal(const ConnectionSettings &settings)
{
    // Bounded, so a host that drops packets does not hold the console twice
    // as long as the failed attempt did.
    ConnectionSettings asking = settings;
    asking.setDefault(QStringLiteral("connect_timeout"), QStringLiteral("5"));
    const QByteArray conninfo = asking.conninfo().toUtf8();
    switch (PQping(conninfo.constData())) {
    case PQPING_NO_ATTEMPT:
        return ConnectionRefusal::BadParameters;
    case PQPING_NO_RESPONSE:
        return ConnectionRefusal::NoServer;
    case PQPING_REJECT:
        return ConnectionRefusal::NotAccepting;
    case PQPING_OK:
        break;
    }
    // The server answers, so it judged the login itself. With a password
    // given it cannot be one missing; no second failed login to find out.
    if (!settings.value(QStringLiteral("password")).isEmpty())
        return ConnectionRefusal::LoginRefused;
    const std::unique_ptr<PGconn, decltype(&PQfinish)> probe(PQconnectdb(conninfo.constData()),
                                                             &PQfinish);
    if (PQstatus(probe.get()) == CONNECTION_OK)
        return ConnectionRefusal::NotAccepting; // it let this one in: the failure was momentary
    return PQconnectionNeedsPassword(probe.get()) ? ConnectionRefusal::PasswordMissing
                                                  : ConnectionRefusal::LoginRefused;
}

QString whatToCheck(ConnectionRefusal refusal, const ConnectionSettings &settings)
{
    switch (refusal) {
    case ConnectionRefusal::BadParameters:
        return QStringLiteral("check the connection string");
    case ConnectionRefusal::NoServer: {
        const QString sslmode = settings.value(QStringLiteral("sslmode"));
        const bool tls = sslmode == QLatin1String("require") ||
                         sslmode == QLatin1String("verify-ca") ||
                         sslmode == QLatin1String("verify-full");
        return tls ? QStringLiteral("is the server running, are host and port right, and does "
                                    "its certificate pass sslmode=%1 (sslrootcert)?")
                         .arg(sslmode)
                   : QStringLiteral("is the server running, and are host and port right?");
    }
    case ConnectionRefusal::NotAccepting:
        return QStringLiteral("the server is starting, stopping or busy; try again shortly");
    case ConnectionRefusal::PasswordMissing:
        return QStringLiteral("give the password (keychain, ~/.pgpass or PGPASSWORD)");
    case ConnectionRefusal::LoginRefused:
        return QStringLiteral("check the user, the password (keychain, ~/.pgpass or PGPASSWORD), "
                              "the database name, and whether the server has a connection free");
    }
    return {};
}

} // namespace keel
