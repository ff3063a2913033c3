#include "QtPrinters.h"

#include <QDirIterator>
#include <QFile>
#include <QHash>
#include <QRegularExpression>
#include <QStringList>

#include <gtest/gtest.h>

namespace keel::test {
namespace {

// The layer order of core/LAYERS and the check it stands for.
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

    // What is wrong with `file` (a path below core/, in `folder`) including
    // `target` (a path below core/), or an empty string.
    QString violation(const QString &folder, const QString &file, const QString &target) const
    {
        const QString targetFolder = folderOf(target);
        if (targetFolder == folder)
            return {};
        if (!knows(targetFolder))
            return QStringLiteral("%1 includes %2, whose folder is not in core/LAYERS")
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

    static QString folderOf(const QString &pathBelowCore)
    {
        const qsizetype slash = pathBelowCore.indexOf(u'/');
        return slash < 0 ? QStringLiteral(".") : pathBelowCore.left(slash);
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

// Every violation in core/, one line each.
QStringList violationsIn(const QString &coreDir, const Layers &layers)
{
    static const QRegularExpression include(QStringLiteral("^#include \"core/([^\"]+)\""),
                                            QRegularExpression::MultilineOption);
    QStringList found;
    QDirIterator files(coreDir, {QStringLiteral("*.h"), QStringLiteral("*.cpp")}, QDir::Files,
                       QDirIterator::Subdirectories);
    while (files.hasNext()) {
        const QString path = files.next();
        const QString relative = path.mid(coreDir.size() + 1);
        const QString folder = Layers::folderOf(relative);
        if (!layers.knows(folder)) {
            found << QStringLiteral("%1: folder %2 is not in core/LAYERS").arg(relative, folder);
            continue;
        }
        auto matches = include.globalMatch(readAll(path));
        while (matches.hasNext()) {
            const QString problem = layers.violation(folder, relative, matches.next().captured(1));
            if (!problem.isEmpty())
                found << problem;
        }
    }
    return found;
}

const QString CoreDir = QStringLiteral(KEEL_SOURCE_DIR "/core");

TEST(LayeringTest, CoreIncludesPointOnlyDown)
{
    const QString text = readAll(CoreDir + QStringLiteral("/LAYERS"));
    ASSERT_FALSE(text.isEmpty()) << "core/LAYERS is missing";
    const QStringList violations = violationsIn(CoreDir, Layers::parse(text));
    EXPECT_TRUE(violations.isEmpty()) << qPrintable(violations.join(u'\n'));
}

TEST(LayeringTest, AnUpwardOrSidewaysIncludeIsCaught)
{
    const Layers layers =
        Layers::parse(QStringLiteral("# order\n.\ndb\nledger outbox\npayment\napi\n"));
    EXPECT_TRUE(layers
                    .violation(QStringLiteral("payment"), QStringLiteral("payment/A.cpp"),
                               QStringLiteral("db/PgConnection.h"))
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
                               QStringLiteral("db/Database.h"))
                    .contains(QLatin1String("is above")));
    EXPECT_TRUE(layers
                    .violation(QStringLiteral("db"), QStringLiteral("db/D.cpp"),
                               QStringLiteral("nowhere/X.h"))
                    .contains(QLatin1String("not in core/LAYERS")));
}

} // namespace
} // namespace keel::test
