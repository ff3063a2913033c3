#include "ui/OverviewView.h"

#include "ui/ChartPanel.h"
#include "ui/QueryWorker.h"

#include <QComboBox>
#include <QDateTime>
#include <QGridLayout>
#include <QLabel>
#include <QScrollArea>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace keel {
namespace {

constexpr double Gap = std::numeric_limits<double>::quiet_NaN();

QList<double> asDoubles(const QList<qint64> &values, double scale = 1.0)
{
    QList<double> out;
    out.reserve(values.size());
    for (const qint64 value : values)
        out << double(value) * scale;
    return out;
}

QList<double> percent(const QList<double> &rates)
{
    QList<double> out;
    for (const double rate : rates)
        out << (rate < 0 ? Gap : rate * 100.0);
    return out;
}

// Money is integer minor units everywhere; only the chart's axis is scaled.
QString money(qint64 minorUnits, int exponent, const QString &currency)
{
    const qint64 scale = qint64(std::pow(10, exponent));
    const qint64 whole = minorUnits / scale;
    const qint64 fraction = std::abs(minorUnits % scale);
    return exponent == 0 ? QStringLiteral("%1 %2").arg(whole).arg(currency)
                         : QStringLiteral("%1.%2 %3")
                               .arg(whole)
                               .arg(fraction, exponent, 10, QLatin1Char('0'))
                               .arg(currency);
}

const QColor Palette[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e),
                          QColor(0x2c, 0xa0, 0x2c), QColor(0xd6, 0x27, 0x28),
                          QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b)};

} // namespace

OverviewView::OverviewView(QueryWorker *worker, QWidget *parent)
    : QWidget(parent), m_worker(worker), m_range(new QComboBox(this)), m_summary(new QLabel(this)),
      m_timer(new QTimer(this)), m_soon(new QTimer(this))
{
    auto *layout = new QVBoxLayout(this);
    auto *bar = new QHBoxLayout;
    auto *rangeLabel = new QLabel(tr("&Range:"), this);
    rangeLabel->setBuddy(m_range);
    const std::pair<QString, qint64> ranges[] = {{tr("15 minutes"), 15 * 60},
                                                 {tr("1 hour"), 3600},
                                                 {tr("6 hours"), 6 * 3600},
                                                 {tr("24 hours"), 24 * 3600},
                                                 {tr("7 days"), 7 * 24 * 3600}};
    for (const auto &[label, seconds] : ranges)
        m_range->addItem(label, seconds);
    m_range->setAccessibleName(tr("Time range"));
    bar->addWidget(rangeLabel);
    bar->addWidget(m_range);
    bar->addSpacing(16);
    bar->addWidget(m_summary, 1);
    layout->addLayout(bar);

    // Two charts a row; a window too short for all of them scrolls.
    auto *board = new QWidget(this);
    m_board = board;
    auto *grid = new QGridLayout(board);
    grid->setContentsMargins(0, 0, 0, 0);
    m_charts = {
        new ChartPanel(tr("Idempotency hit and conflict rate"), tr("% of keyed requests"), this),
        new ChartPanel(tr("Charge requests by outcome"), tr("requests"), this),
        new ChartPanel(tr("Charge latency"), tr("ms"), this),
        new ChartPanel(tr("Money captured and refunded"), tr("major units"), this),
        new ChartPanel(tr("Payment state transitions"), tr("payments"), this),
        new ChartPanel(tr("Payments by state"), tr("payments (log scale)"), this),
        new ChartPanel(tr("Suspense account balance"), tr("major units"), this),
        new ChartPanel(tr("Outbox lag"), tr("seconds, oldest unpublished"), this),
        new ChartPanel(tr("Outbox messages"), tr("messages"), this),
        new ChartPanel(tr("Sagas"), tr("sagas"), this),
        new ChartPanel(tr("Saga compensation rate"), tr("% of sagas started"), this),
        new ChartPanel(tr("Saga step latency by definition"), tr("ms, p95"), this),
        new ChartPanel(tr("Unreconciled difference"), tr("major units, the channel less keel"),
                       this)};
    m_charts.at(5)->setLogarithmic(true);
    m_charts.at(6)->setEmptyText(tr("Nothing parked in a suspense account in this range"));
    m_charts.at(7)->setEmptyText(tr("No relay reported in this range"));
    m_charts.at(11)->setEmptyText(tr("No saga step ran in this range"));
    m_charts.at(12)->setEmptyText(tr("Nothing unreconciled in this range"));
    for (int i = 0; i < m_charts.size(); ++i) {
        m_charts.at(i)->setMinimumHeight(210);
        grid->addWidget(m_charts.at(i), i / 2, i % 2);
    }
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(board);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    layout->addWidget(scroll, 1);

    connect(m_range, &QComboBox::currentIndexChanged, this, [this] {
        Q_EMIT rangeChanged(rangeSeconds());
        refresh();
    });
    connect(m_timer, &QTimer::timeout, this, &OverviewView::refresh);
    m_soon->setSingleShot(true);
    m_soon->setInterval(300);
    connect(m_soon, &QTimer::timeout, this, &OverviewView::refresh);
}

namespace {
constexpr int PollMs = 5000;
constexpr int LivePollMs = 30000;
} // namespace

void OverviewView::startPolling()
{
    m_timer->start(m_live ? LivePollMs : PollMs);
}

void OverviewView::setLiveUpdates(bool live)
{
    const bool resumed = live && !m_live;
    m_live = live;
    if (!m_timer->isActive())
        return;
    m_timer->start(m_live ? LivePollMs : PollMs);
    // What changed while the feed was away (a failover, a restart) was
    // announced to no one: catch up now rather than at the next slow poll.
    if (resumed)
        refreshSoon();
}

void OverviewView::refreshSoon()
{
    if (m_inFlight)
        m_again = true;
    else if (!m_soon->isActive())
        m_soon->start();
}

qint64 OverviewView::rangeSeconds() const
{
    return m_range->currentData().toLongLong();
}

void OverviewView::addPanel(QWidget *panel)
{
    auto *column = qobject_cast<QVBoxLayout *>(layout());
    column->insertWidget(column->count() - 1, panel);
}

void OverviewView::setRangeSeconds(qint64 seconds)
{
    const int index = m_range->findData(seconds);
    if (index >= 0)
        m_range->setCurrentIndex(index);
}

void OverviewView::refresh()
{
    if (m_inFlight)
        return; // the previous refresh is still running; the timer will come back
    m_inFlight = true;
    const qint64 range = rangeSeconds();
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    m_worker->submit<OverviewData>(
        this,
        [range, now, scope = m_scope](QSqlDatabase db) {
            return OverviewQuery::load(db, range, now, scope);
        },
        [this](const Result<OverviewData> &result) {
            m_inFlight = false;
            if (std::exchange(m_again, false))
                refreshSoon();
            if (!result) {
                Q_EMIT refreshFailed(result.error().message);
                return;
            }
            display(*result);
            Q_EMIT refreshed();
        });
}

namespace {

// Money captured (solid) and refunded (dashed) per currency, in major units.
QList<ChartPanel::Line> volumeLines(const OverviewData &data)
{
    QList<ChartPanel::Line> volumes;
    int colour = 0;
    QStringList currencies = data.captured.keys();
    currencies.sort();
    for (const QString &currency : std::as_const(currencies)) {
        const double scale = 1.0 / std::pow(10, data.exponents.value(currency, 2));
        const QColor hue = Palette[colour++ % 6];
        volumes.append({OverviewView::tr("%1 captured").arg(currency), hue,
                        asDoubles(data.captured.value(currency), scale)});
        if (data.refunded.contains(currency))
            volumes.append({OverviewView::tr("%1 refunded").arg(currency), hue,
                            asDoubles(data.refunded.value(currency), scale), Qt::DashLine});
    }
    return volumes;
}

// Payments by state at each bucket's end; states past the palette are dashed.
QList<ChartPanel::Line> stateLines(const OverviewData &data)
{
    QList<ChartPanel::Line> states;
    int hue = 0;
    for (const char *state : {"Authorizing", "Authorized", "Capturing", "Captured", "Refunding",
                              "Refunded", "Failed", "Reversed", "Canceled"}) {
        const QString name = QLatin1String(state);
        if (!data.stateLevels.contains(name))
            continue;
        QList<double> levels;
        for (const qint64 level : data.stateLevels.value(name))
            levels << (level < 0 ? Gap : double(level));
        states.append({name, Palette[hue % 6], levels, hue < 6 ? Qt::SolidLine : Qt::DashLine});
        ++hue;
    }
    return states;
}

// One line per currency, in major units.
QList<ChartPanel::Line> currencyLines(const OverviewData &data,
                                      const QHash<QString, QList<qint64>> &levels)
{
    QList<ChartPanel::Line> lines;
    QStringList currencies = levels.keys();
    currencies.sort();
    int hue = 0;
    for (const QString &currency : std::as_const(currencies))
        lines.append({currency, Palette[hue++ % 6],
                      asDoubles(levels.value(currency),
                                1.0 / std::pow(10, data.exponents.value(currency, 2)))});
    return lines;
}

// The suspense balance per currency; where owed cases moved money in the
// range, what is held and what is owed apart instead, as the balance nets
// one against the other and would read 0 with both sides full.
QList<ChartPanel::Line> suspenseLines(const OverviewData &data)
{
    QList<ChartPanel::Line> lines;
    QStringList currencies = data.suspenseLevels.keys() + data.suspenseOwedLevels.keys();
    currencies.removeDuplicates();
    currencies.sort();
    int hue = 0;
    for (const QString &currency : std::as_const(currencies)) {
        const double unit = 1.0 / std::pow(10, data.exponents.value(currency, 2));
        const QList<qint64> net =
            data.suspenseLevels.value(currency, QList<qint64>(data.times.size(), 0));
        const QList<qint64> owed = data.suspenseOwedLevels.value(currency);
        if (std::all_of(owed.cbegin(), owed.cend(), [](qint64 level) { return level == 0; })) {
            if (data.suspenseLevels.contains(currency))
                lines.append({currency, Palette[hue++ % 6], asDoubles(net, unit)});
            continue;
        }
        QList<qint64> held(net.size(), 0);
        for (qsizetype i = 0; i < held.size() && i < owed.size(); ++i)
            held[i] = net.at(i) + owed.at(i);
        lines.append(
            {OverviewView::tr("%1 held").arg(currency), Palette[hue++ % 6], asDoubles(held, unit)});
        lines.append(
            {OverviewView::tr("%1 owed").arg(currency), Palette[hue++ % 6], asDoubles(owed, unit)});
    }
    return lines;
}

// The relay's reports: lag in seconds; messages published, refused and
// parked per bucket, and the backlog it saw.
QList<ChartPanel::Line> outboxLagLines(const OverviewData &data)
{
    if (!data.levels.contains(QStringLiteral("outbox.lag_ms")))
        return {};
    QList<double> seconds;
    for (const qint64 lag : data.levels.value(QStringLiteral("outbox.lag_ms")))
        seconds << (lag < 0 ? Gap : double(lag) / 1000.0);
    return {{OverviewView::tr("average lag"), Palette[1], seconds}};
}

QList<ChartPanel::Line> outboxMessageLines(const OverviewData &data)
{
    QList<double> backlog;
    for (const qint64 level : data.levels.value(QStringLiteral("outbox.backlog")))
        backlog << (level < 0 ? Gap : double(level));
    backlog.resize(data.times.size(), Gap);
    return {{OverviewView::tr("published"), Palette[0],
             asDoubles(data.series(QStringLiteral("outbox.published")))},
            {OverviewView::tr("refused"), Palette[1],
             asDoubles(data.series(QStringLiteral("outbox.failed")))},
            {OverviewView::tr("parked"), Palette[3],
             asDoubles(data.series(QStringLiteral("outbox.parked")))},
            {OverviewView::tr("backlog"), Palette[4], backlog, Qt::DashLine}};
}

QList<ChartPanel::Line> sagaLines(const OverviewData &data)
{
    return {{OverviewView::tr("started"), Palette[0],
             asDoubles(data.series(QStringLiteral("saga.started")))},
            {OverviewView::tr("succeeded"), Palette[2],
             asDoubles(data.series(QStringLiteral("saga.succeeded")))},
            {OverviewView::tr("compensated"), Palette[1],
             asDoubles(data.series(QStringLiteral("saga.compensated")))},
            {OverviewView::tr("parked"), Palette[3],
             asDoubles(data.series(QStringLiteral("saga.parked")))}};
}

// One line per definition: p95 per bucket, named with the range's percentiles.
QList<ChartPanel::Line> stepLatencyLines(const OverviewData &data)
{
    QList<ChartPanel::Line> lines;
    int hue = 0;
    for (auto step = data.stepLatency.cbegin(); step != data.stepLatency.cend(); ++step) {
        QList<double> ms;
        for (const qint64 micros : step->p95Micros)
            ms << (micros == 0 ? Gap : double(micros) / 1000.0);
        const auto asMs = [](qint64 micros) {
            return QString::number(double(micros) / 1000.0, 'g', 3);
        };
        lines.append({OverviewView::tr("%1 (p50 %2 · p95 %3 · p99 %4 ms)")
                          .arg(step.key(), asMs(step->p50), asMs(step->p95), asMs(step->p99)),
                      Palette[hue % 6], ms, hue < 6 ? Qt::SolidLine : Qt::DashLine});
        ++hue;
    }
    return lines;
}

QString summaryText(const OverviewData &data)
{
    QStringList summary;
    for (const auto &[state, count] : data.inFlight)
        summary << OverviewView::tr("%1 in %2").arg(count).arg(state);
    for (const auto &[currency, balance] : data.suspenseBalances)
        summary << OverviewView::tr("suspense %1")
                       .arg(keel::money(balance, data.exponents.value(currency, 2), currency));
    // The balance nets money held against money owed: say the owed apart.
    for (const auto &[currency, owed] : data.suspenseOwed)
        summary << OverviewView::tr("owed by channels %1")
                       .arg(keel::money(owed, data.exponents.value(currency, 2), currency));
    if (!data.suspenseShown)
        summary << OverviewView::tr("suspense balances need ledger access");
    return summary.isEmpty()
               ? OverviewView::tr("No payments in flight; suspense accounts are empty.")
               : summary.join(QStringLiteral(" · "));
}

} // namespace

void OverviewView::display(const OverviewData &data)
{
    m_data = data;
    const qint64 range = rangeSeconds();
    m_charts[0]->setLines(data.times,
                          {{tr("hit rate (replays)"), Palette[0], percent(data.hitRate())},
                           {tr("conflicts (409 + 422)"), Palette[3], percent(data.conflictRate())}},
                          range);
    m_charts[1]->setLines(
        data.times,
        {{tr("new"), Palette[0], asDoubles(data.series(QStringLiteral("idempotency.new")))},
         {tr("replayed"), Palette[2],
          asDoubles(data.series(QStringLiteral("idempotency.replayed")))},
         {tr("in flight 409"), Palette[1],
          asDoubles(data.series(QStringLiteral("idempotency.in_flight_conflict")))},
         {tr("mismatch 422"), Palette[3],
          asDoubles(data.series(QStringLiteral("idempotency.fingerprint_mismatch")))},
         {tr("other 4xx"), Palette[4],
          asDoubles(data.series(QStringLiteral("http.charges_create.4xx")))}},
        range);
    const auto ms = [](const QList<qint64> &micros) {
        QList<double> out;
        for (const qint64 value : micros)
            out << (value == 0 ? Gap : double(value) / 1000.0);
        return out;
    };
    m_charts[2]->setLines(data.times,
                          {{QStringLiteral("p50"), Palette[2], ms(data.p50Micros)},
                           {QStringLiteral("p95"), Palette[1], ms(data.p95Micros)},
                           {QStringLiteral("p99"), Palette[3], ms(data.p99Micros)}},
                          range);
    m_charts[3]->setLines(data.times, volumeLines(data), range);
    m_charts[4]->setLines(
        data.times,
        {{tr("authorized"), Palette[0],
          asDoubles(data.series(QStringLiteral("transition.Authorizing.Authorized")))},
         {tr("declined or failed"), Palette[3],
          asDoubles(data.series(QStringLiteral("transition.Authorizing.Failed")))},
         {tr("captured"), Palette[2],
          asDoubles(data.series(QStringLiteral("transition.Capturing.Captured")))},
         {tr("refunded"), Palette[4],
          asDoubles(data.series(QStringLiteral("transition.Refunding.Refunded")))}},
        range);

    m_charts[5]->setLines(data.times, stateLines(data), range);

    m_charts[6]->setLines(data.times, suspenseLines(data), range);
    m_charts[7]->setLines(data.times, outboxLagLines(data), range);
    m_charts[8]->setLines(data.times, outboxMessageLines(data), range);
    m_charts[9]->setLines(data.times, sagaLines(data), range);
    m_charts[10]->setLines(
        data.times, {{tr("turned to compensation"), Palette[1], percent(data.compensationRate())}},
        range);
    m_charts[11]->setLines(data.times, stepLatencyLines(data), range);
    m_charts[12]->setLines(data.times, currencyLines(data, data.unreconciled), range);

    m_summary->setText(summaryText(data));
}

} // namespace keel
