#include "ChaosHistory.h"

#include <QHash>
#include <QSet>

#include <algorithm>

namespace keel::chaos {
namespace {

// The charge a request is about: the one it made, or the one it captures or refunds.
QString chargeOf(const Told &told)
{
    if (told.kind == Told::Kind::Charge)
        return told.object;
    if (told.kind == Told::Kind::Capture || told.kind == Told::Kind::Refund)
        return told.target;
    return {};
}

void printRequest(QTextStream &out, const Told &told)
{
    QStringList answers;
    for (const int status : told.attempts)
        answers << QString::number(status);
    out << "  t=" << told.firstMs / 1000.0 << ".." << told.lastMs / 1000.0 << "s "
        << kindName(told.kind) << ' ' << told.key << ' ' << told.path << ' ' << told.body << " -> "
        << told.status << ' ' << told.object << ' ' << told.state << " [" << answers.join(u',')
        << ']' << Qt::endl;
}

} // namespace

void printHistories(QTextStream &out, const QList<QByteArray> &violatingKeys,
                    const QList<Told> &record, const QList<Fault> &faults, int most)
{
    QHash<QByteArray, const Told *> byKey;
    QHash<QString, QList<const Told *>> byCharge;
    for (const Told &told : record) {
        byKey.insert(told.key, &told);
        if (const QString charge = chargeOf(told); !charge.isEmpty())
            byCharge[charge].append(&told);
    }
    QSet<QByteArray> shown;
    int printed = 0;
    for (const QByteArray &key : violatingKeys) {
        const Told *violating = byKey.value(key);
        if (!violating || shown.contains(key))
            continue;
        if (printed++ == most) {
            out << "  (histories of the other violating keys left out)" << Qt::endl;
            break;
        }
        QList<const Told *> history = byCharge.value(chargeOf(*violating));
        if (history.isEmpty())
            history << violating;
        std::sort(history.begin(), history.end(),
                  [](const Told *a, const Told *b) { return a->firstMs < b->firstMs; });
        out << "history of " << key << ':' << Qt::endl;
        for (const Told *told : std::as_const(history)) {
            printRequest(out, *told);
            shown.insert(told->key);
            for (const Fault &fault : faults)
                if (fault.atMs + fault.durationMs >= told->firstMs - 1000 &&
                    fault.atMs <= told->lastMs)
                    out << "    fault " << fault.describe() << Qt::endl;
        }
    }
}

} // namespace keel::chaos
