#pragma once

#include "QtPrinters.h"
#include "TestCluster.h"

#include "core/db/ConnectionSettings.h"

#include <gtest/gtest.h>

#include <QSqlDatabase>
#include <QStringList>

namespace keel::test {

// Gives each test a fresh, empty database of its own, dropped afterwards even
// when the test failed.
class DatabaseTest : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;

    // Superuser settings for this test's database.
    ConnectionSettings settings() const;
    // This thread's Qt SQL connection to it, as superuser.
    QSqlDatabase db();
    // Applies keel's shipped migrations; fails the test if that fails.
    void migrate();
    // A login role for this test (dropped in TearDown), member of `groupRole`.
    ConnectionSettings loginAs(const QString &groupRole);

    QString m_database;
    QStringList m_roles;
};

} // namespace keel::test
