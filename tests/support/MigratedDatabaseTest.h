#pragma once

#include "DatabaseTest.h"

#include <QByteArray>
#include <QString>

#include <memory>

namespace keel {
class LibpqConnection;
}

namespace keel::test {

// A fresh database with keel's schema and a superuser libpq session on it:
// what most integration and widget tests start from.
class MigratedDatabaseTest : public DatabaseTest {
protected:
    MigratedDatabaseTest();
    ~MigratedDatabaseTest() override;

    void SetUp() override;
    void TearDown() override;

    // The superuser session, for arranging rows and reading them back.
    LibpqConnection &session();
    // Runs statements as the superuser; fails the test if they fail.
    void exec(const QByteArray &sql);
    // The first column of the first row; fails the test (and is empty) if the
    // statement fails.
    QString scalar(const QByteArray &sql);

private:
    std::unique_ptr<LibpqConnection> m_session;
};

} // namespace keel::test
