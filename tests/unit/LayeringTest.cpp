#include "QtPrinters.h"

#include <QDirIterator>
#include <QFile>
#include <QHash>
#include <QRegularExpression>
#include <QStringList>

#include <gtest/gtest.h>

namespace keel::test {
namespace {

// The layer order of a LAYERS file (core/LAYERS, devkit/LAYERS) and the check
// it stands for.
class Layers {
public:
    static Layers parse(const QString &text)
    {
        Layers layers;
        int rank = 0;
        for (const QString &line : text.split(u'\n')) {
            const QString trimmed = line.trimmed();
            if (trimmed.isEmpty() || trimmed.startsWith(u'#'))
                continue;
            for (const QString &folder :
                 trimmed.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts))
                layers.m_rank.insert(folder, rank);
            ++rank;
        }
        return layers;
    }

    bool knows(const QString &folder) const { return m_rank.contains(folder); }

    // What is wrong with `file` (a path below the tree, in `folder`) including
    // `target` (a path below the same tree), or an empty string.
    QString violation(const QString &folder, const QString &file, const QString &target) const
    {
        const QString targetFolder = folderOf(target);
        if (targetFolder == folder)
            return {};
        if (!knows(targetFolder))
            return QStringLiteral("%1 includes %2, whose folder is not in LAYERS")
                .arg(file, target);
        const int own = m_rank.value(folder);
        const int other = m_rank.value(targetFolder);
        if (other > own)
            return QStringLiteral("%1 includes %2: %3 is above %4")
                .arg(file, target, targetFolder, folder);
        if (other == own)
            return QStringLiteral("%1 includes %2: %3 and %4 are peers")
                .arg(file, target, targetFolder, folder);
        return {};
    }

    static QString folderOf(const QString &pathBelowTree)
    {
        const qsizetype slash = pathBelowTree.indexOf(u'/');
        return slash < 0 ? QStringLiteral(".") : pathBelowTree.left(slash);
    }

private:
    QHash<QString, int> m_rank;
};

QString readAll(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

// The top-level folders whose code is keel's, and which of them each may
// include: core stands alone, the dev kit and the widgets sit on core, the
// executables on everything.
const QHash<QString, QStringList> &treesEachMayInclude()
{
    static const QHash<QString, QStringList> trees{
        {QStringLiteral("core"), {QStringLiteral("core")}},
        {QStringLiteral("devkit"), {QStringLiteral("core"), QStringLiteral("devkit")}},
        {QStringLiteral("ui"), {QStringLiteral("core"), QStringLiteral("ui")}},
        {QStringLiteral("app"),
         {QStringLiteral("core"), QStringLiteral("devkit"), QStringLiteral("ui")}},
    };
    return trees;
}

// What is wrong with a file of `tree` including `target` (a path from the
// repository root) across trees, or an empty string.
QString crossTreeViolation(const QString &tree, const QString &file, const QString &target)
{
    const QString targetTree = target.left(target.indexOf(u'/'));
    const QStringList knownTrees = treesEachMayInclude().keys() << QStringLiteral("tests");
    if (!knownTrees.contains(targetTree) || treesEachMayInclude().value(tree).contains(targetTree))
        return {};
    return QStringLiteral("%1/%2 includes %3: %1/ never includes %4/")
        .arg(tree, file, target, targetTree);
}

// Every violation in the tree at `root` (named `tree`), one line each;
// `layers`, when given, orders the tree's own folders.
QStringList violationsIn(const QString &root, const QString &tree, const Layers *layers)
{
    static const QRegularExpression include(QStringLiteral("^#include \"([a-z]+/[^\"]+)\""),
                                            QRegularExpression::MultilineOption);
    QStringList found;
    QDirIterator files(root, {QStringLiteral("*.h"), QStringLiteral("*.cpp")}, QDir::Files,
                       QDirIterator::Subdirectories);
    while (files.hasNext()) {
        const QString path = files.next();
        const QString relative = path.mid(root.size() + 1);
        const QString folder = Layers::folderOf(relative);
        if (layers && !layers->knows(folder)) {
            found << QStringLiteral("%1/%2: folder %3 is not in %1/LAYERS")
                         .arg(tree, relative, folder);
            continue;
        }
        auto matches = include.globalMatch(readAll(path));
        while (matches.hasNext()) {
            const QString target = matches.next().captured(1);
            QString problem = crossTreeViolation(tree, relative, target);
            const QString ownPrefix = tree + u'/';
            if (problem.isEmpty() && layers && target.startsWith(ownPrefix))
                problem = layers->violation(folder, relative, target.mid(ownPrefix.size()));
            if (!problem.isEmpty())
                found << problem;
        }
    }
    return found;
}

const QString SourceDir = QStringLiteral(KEEL_SOURCE_DIR);

// The violations in one of keel's trees, ordered by its LAYERS file if it
// has one.
QStringList violationsInTree(const QString &tree)
{
    const QString root = SourceDir + u'/' + tree;
    const QString layersText = readAll(root + QStringLiteral("/LAYERS"));
    if (layersText.isEmpty())
        return violationsIn(root, tree, nullptr);
    const Layers layers = Layers::parse(layersText);
    return violationsIn(root, tree, &layers);
}

TEST(LayeringTest, CoreIncludesPointOnlyDown)
{
    ASSERT_FALSE(readAll(SourceDir + QStringLiteral("/core/LAYERS")).isEmpty())
        << "core/LAYERS is missing";
    const QStringList violations = violationsInTree(QStringLiteral("core"));
    EXPECT_TRUE(violations.isEmpty()) << qPrintable(violations.join(u'\n'));
}

TEST(LayeringTest, TheDevKitSitsOnCoreAndNothingElse)
{
    ASSERT_FALSE(readAll(SourceDir + QStringLiteral("/devkit/LAYERS")).isEmpty())
        << "devkit/LAYERS is missing";
    const QStringList violations = violationsInTree(QStringLiteral("devkit"));
    EXPECT_TRUE(violations.isEmpty()) << qPrintable(violations.join(u'\n'));
}

TEST(LayeringTest, WidgetsAndExecutablesIncludeOnlyWhatSitsBelowThem)
{
    const QStringList violations =
        violationsInTree(QStringLiteral("ui")) + violationsInTree(QStringLiteral("app"));
    EXPECT_TRUE(violations.isEmpty()) << qPrintable(violations.join(u'\n'));
}

// Core hands what an operator should read to ServiceLog and errors to its
// callers; it never writes to a stream of its own.
TEST(LayeringTest, CoreNeverPrints)
{
    static const QRegularExpression printing(
        QStringLiteral("\\b(qDebug|qInfo|qWarning|qCritical|qFatal|printf|fprintf|puts)\\s*\\(|std:"
                       ":c(out|err)\\b"));
    QStringList found;
    QDirIterator files(SourceDir + QStringLiteral("/core"),
                       {QStringLiteral("*.h"), QStringLiteral("*.cpp")}, QDir::Files,
                       QDirIterator::Subdirectories);
    while (files.hasNext()) {
        const QString path = files.next();
        if (readAll(path).contains(printing))
            found << path.mid(SourceDir.size() + 1);
    }
    EXPECT_TRUE(found.isEmpty()) << "these print: " << qPrintable(found.join(QStringLiteral(", ")));
}

TEST(LayeringTest, AnIncludeAcrossTreesIsCaught)
{
    EXPECT_TRUE(crossTreeViolation(QStringLiteral("core"), QStringLiteral("db/X.cpp"),
                                   QStringLiteral("devkit/servers/EmbeddedCluster.h"))
                    .contains(QLatin1String("core/ never includes devkit/")));
    EXPECT_FALSE(crossTreeViolation(QStringLiteral("core"), QStringLiteral("db/X.cpp"),
                                    QStringLiteral("ui/MainWindow.h"))
                     .isEmpty());
    EXPECT_FALSE(crossTreeViolation(QStringLiteral("ui"), QStringLiteral("MainWindow.cpp"),
                                    QStringLiteral("app/console/ConsoleOptions.h"))
                     .isEmpty());
    EXPECT_FALSE(crossTreeViolation(QStringLiteral("ui"), QStringLiteral("MainWindow.cpp"),
                                    QStringLiteral("devkit/stack/DevStack.h"))
                     .isEmpty());
    EXPECT_FALSE(crossTreeViolation(QStringLiteral("devkit"), QStringLiteral("sim/A.cpp"),
                                    QStringLiteral("tests/support/WaitUntil.h"))
                     .isEmpty());
    EXPECT_TRUE(crossTreeViolation(QStringLiteral("app"), QStringLiteral("keel/DevCommand.cpp"),
                                   QStringLiteral("devkit/stack/DevStack.h"))
                    .isEmpty());
    EXPECT_TRUE(crossTreeViolation(QStringLiteral("ui"), QStringLiteral("MainWindow.cpp"),
                                   QStringLiteral("core/read/AuditQuery.h"))
                    .isEmpty());
}

TEST(LayeringTest, AnUpwardOrSidewaysIncludeIsCaught)
{
    const Layers layers =
        Layers::parse(QStringLiteral("# order\n.\ndb\nledger outbox\npayment\napi\n"));
    EXPECT_TRUE(layers
                    .violation(QStringLiteral("payment"), QStringLiteral("payment/A.cpp"),
                               QStringLiteral("db/LibpqConnection.h"))
                    .isEmpty());
    EXPECT_TRUE(layers
                    .violation(QStringLiteral("payment"), QStringLiteral("payment/A.cpp"),
                               QStringLiteral("Result.h"))
                    .isEmpty());
    EXPECT_TRUE(layers
                    .violation(QStringLiteral("payment"), QStringLiteral("payment/A.cpp"),
                               QStringLiteral("api/ApiError.h"))
                    .contains(QLatin1String("is above")));
    EXPECT_TRUE(layers
                    .violation(QStringLiteral("ledger"), QStringLiteral("ledger/L.cpp"),
                               QStringLiteral("outbox/Outbox.h"))
                    .contains(QLatin1String("peers")));
    EXPECT_TRUE(layers
                    .violation(QStringLiteral("."), QStringLiteral("Chaos.cpp"),
                               QStringLiteral("db/QtSqlConnections.h"))
                    .contains(QLatin1String("is above")));
    EXPECT_TRUE(layers
                    .violation(QStringLiteral("db"), QStringLiteral("db/D.cpp"),
                               QStringLiteral("nowhere/X.h"))
                    .contains(QLatin1String("not in LAYERS")));
}

} // namespace
} // namespace keel::test
