#include "TestPki.h"

#include <QFile>
#include <QProcess>

namespace keel::test {

TestPki::TestPki()
{
    if (!m_work.isValid())
        return;
    QFile names(path("san.ext"));
    if (!names.open(QIODevice::WriteOnly) || names.write("subjectAltName=DNS:localhost\n") < 0)
        return;
    names.close();
    const QStringList ec{QStringLiteral("-newkey"), QStringLiteral("ec"),
                         QStringLiteral("-pkeyopt"), QStringLiteral("ec_paramgen_curve:prime256v1"),
                         QStringLiteral("-nodes")};
    const auto signedFor = [](const char *out, const char *days) {
        return QStringList{
            QStringLiteral("x509"),       QStringLiteral("-req"),   QStringLiteral("-in"),
            QStringLiteral("server.csr"), QStringLiteral("-CA"),    QStringLiteral("ca.crt"),
            QStringLiteral("-CAkey"),     QStringLiteral("ca.key"), QStringLiteral("-extfile"),
            QStringLiteral("san.ext"),    QStringLiteral("-days"),  QLatin1String(days),
            QStringLiteral("-out"),       QLatin1String(out)};
    };
    // -days 0: valid until the second it was made, expired ever after.
    m_ok = openssl(QStringList{QStringLiteral("req"), QStringLiteral("-x509")} + ec +
                   QStringList{QStringLiteral("-keyout"), QStringLiteral("ca.key"),
                               QStringLiteral("-out"), QStringLiteral("ca.crt"),
                               QStringLiteral("-days"), QStringLiteral("2"),
                               QStringLiteral("-subj"), QStringLiteral("/CN=keel test CA")}) &&
           openssl(QStringList{QStringLiteral("req")} + ec +
                   QStringList{QStringLiteral("-keyout"), QStringLiteral("server.key"),
                               QStringLiteral("-out"), QStringLiteral("server.csr"),
                               QStringLiteral("-subj"), QStringLiteral("/CN=localhost")}) &&
           openssl(signedFor("server.crt", "2")) && openssl(signedFor("expired.crt", "0"));
}

bool TestPki::openssl(const QStringList &arguments) const
{
    QProcess process;
    process.setWorkingDirectory(m_work.path());
    process.start(QStringLiteral("openssl"), arguments);
    return process.waitForFinished(30000) && process.exitStatus() == QProcess::NormalExit &&
           process.exitCode() == 0;
}

} // namespace keel::test
