#include "MigratedDatabaseTest.h"

#include "core/db/LibpqConnection.h"
#include "core/ops/AuditChain.h"
#include "ui/AuditModel.h"
#include "ui/AuditView.h"
#include "ui/QueryWorker.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace keel;
using keel::test::MigratedDatabaseTest;

// An auditor's console on a trail of 450 links.
class AuditViewTest : public MigratedDatabaseTest {
protected:
    void SetUp() override
    {
        MigratedDatabaseTest::SetUp();
        ASSERT_FALSE(HasFatalFailure());
        exec("DO $$ BEGIN FOR i IN 1..450 LOOP "
             "INSERT INTO keel.audit_log (action, object_type, object_id, detail) VALUES "
             "(CASE WHEN i % 3 = 0 THEN 'approve' ELSE 'propose' END, 'operator_action', "
             "(i / 3)::text, jsonb_build_object('reason', '核对差错 ' || i)); "
             "END LOOP; END $$");
        m_worker = std::make_unique<QueryWorker>(loginAs(QStringLiteral("keel_auditor")));
        m_worker->start();
    }
    void TearDown() override
    {
        if (m_worker)
            m_worker->stop();
        DatabaseTest::TearDown();
    }
    std::unique_ptr<QueryWorker> m_worker;
};

TEST_F(AuditViewTest, ModelPagesNewestFirstAndPassesTheModelTester)
{
    AuditModel model(AuditModel::pagesFrom(m_worker.get()));
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy pages(&model, &AuditModel::pageLoaded);
    model.search({});
    ASSERT_TRUE(pages.wait(10000));
    EXPECT_EQ(model.index(0, AuditModel::Seq).data().toLongLong(), 450);
    EXPECT_EQ(model.index(0, AuditModel::Action).data().toString(), QStringLiteral("approve"));
    while (model.rowCount() < 450) {
        if (model.canFetchMore({}))
            model.fetchMore({});
        ASSERT_TRUE(pages.wait(10000)) << model.rowCount();
    }
    EXPECT_FALSE(model.canFetchMore({}));
    EXPECT_EQ(model.index(449, AuditModel::Seq).data().toLongLong(), 1);

    model.search({QString(), QStringLiteral("approve"), QStringLiteral("operator_action:10")});
    ASSERT_TRUE(pages.wait(10000));
    ASSERT_EQ(model.rowCount(), 1);
    EXPECT_EQ(model.index(0, AuditModel::Seq).data().toLongLong(), 30);
}

TEST_F(AuditViewTest, VerifyFindsAnEditedRowAndNamesIt)
{
    AuditView view(m_worker.get());
    view.show();
    QSignalSpy loaded(view.model(), &AuditModel::pageLoaded);
    view.search();
    ASSERT_TRUE(loaded.wait(10000));
    QSignalSpy verified(&view, &AuditView::verified);
    QTest::mouseClick(view.verifyButton(), Qt::LeftButton);
    ASSERT_TRUE(verified.wait(10000));
    EXPECT_TRUE(verified.takeFirst().at(0).toBool()) << qPrintable(view.verdict()->text());
    EXPECT_TRUE(view.verdict()->text().contains(QLatin1String("450 links")))
        << qPrintable(view.verdict()->text());

    exec("SET session_replication_role = replica; "
         "UPDATE keel.audit_log SET actor = 'someone_else' WHERE seq = 420");
    QTest::mouseClick(view.verifyButton(), Qt::LeftButton);
    ASSERT_TRUE(verified.wait(10000));
    const QList<QVariant> broken = verified.takeFirst();
    EXPECT_FALSE(broken.at(0).toBool());
    EXPECT_EQ(broken.at(1).toLongLong(), 420);
    EXPECT_TRUE(view.verdict()->text().contains(QLatin1String("seq 420")))
        << qPrintable(view.verdict()->text());
    // The broken link is the row the auditor is taken to.
    const int row = view.model()->rowOf(420);
    ASSERT_GE(row, 0);
    EXPECT_EQ(view.model()->index(row, AuditModel::Seq).data(Qt::ForegroundRole).isValid(), true);
}

TEST_F(AuditViewTest, ACheckpointSavedFromTheConsoleCatchesALaterRewrite)
{
    AuditView view(m_worker.get());
    QTemporaryDir directory;
    const QString file = directory.filePath(QStringLiteral("head.txt"));
    QSignalSpy saved(&view, &AuditView::checkpointSaved);
    view.saveCheckpointTo(file);
    ASSERT_TRUE(saved.wait(10000));
    EXPECT_EQ(saved.takeFirst().at(0).toString(), QString());
    QFile written(file);
    ASSERT_TRUE(written.open(QIODevice::ReadOnly));
    auto checkpoint = AuditCheckpoint::parse(written.readAll());
    ASSERT_TRUE(checkpoint.ok()) << qPrintable(checkpoint.error().message);
    EXPECT_EQ(checkpoint->seq, 450);

    // Links 449 and 450 replaced by a consistent pair, the chain's head wound
    // back with them: the chain alone cannot tell, the checkpoint can.
    exec("SET session_replication_role = replica; "
         "DELETE FROM keel.audit_log WHERE seq >= 449; "
         "SET session_replication_role = origin; "
         "UPDATE keel.audit_chain_head SET seq = 448, "
         "hash = (SELECT hash FROM keel.audit_log WHERE seq = 448); "
         "INSERT INTO keel.audit_log (action, object_type, object_id) VALUES "
         "('propose', 'operator_action', '149'), ('propose', 'operator_action', '150')");
    QSignalSpy verified(&view, &AuditView::verified);
    view.verify();
    ASSERT_TRUE(verified.wait(10000));
    EXPECT_TRUE(verified.takeFirst().at(0).toBool());
    view.verifyAgainst(*checkpoint);
    ASSERT_TRUE(verified.wait(10000));
    const QList<QVariant> caught = verified.takeFirst();
    EXPECT_FALSE(caught.at(0).toBool());
    EXPECT_EQ(caught.at(1).toLongLong(), 450);
    EXPECT_TRUE(view.verdict()->text().contains(QLatin1String("checkpoint")))
        << qPrintable(view.verdict()->text());
}
