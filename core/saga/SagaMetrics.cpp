#include "core/saga/SagaMetrics.h"

#include "core/metrics/Metrics.h"

#include <QMutex>
#include <QSet>

namespace keel::sagaMetrics {
namespace {

constexpr int MaxNames = 64;

QString bounded(const QString &name)
{
    static QMutex mutex;
    static QSet<QString> seen;
    const QMutexLocker lock(&mutex);
    if (seen.contains(name))
        return name;
    if (seen.size() >= MaxNames)
        return QStringLiteral("other");
    seen.insert(name);
    return name;
}

} // namespace

void countFinished(const QString &definition, const QString &status)
{
    Metrics::instance().countSaga(bounded(definition), status);
}

void observeAttempt(const QString &definition, const QString &step, bool compensation,
                    const StepAnswer &answer, qint64 micros)
{
    const bool known = bounded(definition + u'/' + step) != QLatin1String("other");
    Metrics::instance().observeSagaStep(bounded(definition), known ? step : QStringLiteral("other"),
                                        compensation ? QStringLiteral("compensate")
                                                     : QStringLiteral("action"),
                                        verdictName(answer.verdict), micros);
}

} // namespace keel::sagaMetrics
