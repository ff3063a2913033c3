#pragma once

#include <QString>
#include <QTemporaryDir>

namespace keel::test {

// A throwaway certificate authority and what it signed, made with the
// openssl command as an operator would: a certificate for "localhost" that
// verifies, one that expired the moment it was signed, and the key both
// carry. Lives as long as the object.
class TestPki final {
public:
    TestPki();
    bool ok() const { return m_ok; }

    QString caCertificate() const { return path("ca.crt"); }
    QString serverKey() const { return path("server.key"); }
    QString serverCertificate() const { return path("server.crt"); }
    QString expiredCertificate() const { return path("expired.crt"); }

private:
    QString path(const char *name) const { return m_work.filePath(QLatin1String(name)); }
    bool openssl(const QStringList &arguments) const;

    QTemporaryDir m_work;
    bool m_ok = false;
};

} // namespace keel::test
