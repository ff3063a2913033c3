#pragma once

#include "MigratedDatabaseTest.h"

#include "ui/ConnectDialog.h"

#include <QLineEdit>
#include <QSpinBox>

namespace keel::test {

// What the connection-dialog tests share: logins that must give a password
// (TCP on loopback is scram-sha-256) and a dialog filled in to reach this
// test's database over TCP.
class ConnectDialogTest : public MigratedDatabaseTest {
protected:
    QString createPasswordLogin(const QString &password)
    {
        const QString role = QStringLiteral("t_pw_%1").arg(uniqueSuffix());
        EXPECT_TRUE(TestCluster::instance()
                        .createLoginRole(role, QStringLiteral("keel_auditor"), password)
                        .ok());
        m_roles << role;
        return role;
    }

    void fillHostFields(ConnectDialog &dialog, const QString &name, const QString &user)
    {
        qobject_cast<QLineEdit *>(dialog.field(QStringLiteral("name")))->setText(name);
        qobject_cast<QLineEdit *>(dialog.field(QStringLiteral("host")))
            ->setText(QStringLiteral("127.0.0.1"));
        qobject_cast<QSpinBox *>(dialog.field(QStringLiteral("port")))
            ->setValue(settings().value(QStringLiteral("port")).toInt());
        qobject_cast<QLineEdit *>(dialog.field(QStringLiteral("database")))->setText(m_database);
        qobject_cast<QLineEdit *>(dialog.field(QStringLiteral("user")))->setText(user);
    }
};

} // namespace keel::test
