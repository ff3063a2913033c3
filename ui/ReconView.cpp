#include "ui/ReconView.h"

#include "core/money/Currency.h"
#include "ui/ListTables.h"
#include "ui/QueryWorker.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace keel {
namespace {

constexpr int RunLimit = 200;
constexpr int BreakLimit = 1000;

// Integer minor units written in major units: never through a double.
QString money(qint64 amount, const QString &currency, int exponent)
{
    const QString digits = formatMajorUnits(qAbs(amount), Currency{currency, exponent, 0});
    return (amount < 0 ? QStringLiteral("-") : QString()) + digits + u' ' + currency;
}

QString money(const ReconMoney &value)
{
    return money(value.amount, value.currency, value.exponent);
}

QString differences(const QList<ReconMoney> &amounts)
{
    QStringList written;
    for (const ReconMoney &amount : amounts)
        written << money(amount);
    return written.join(QStringLiteral(", "));
}

} // namespace

ReconView::ReconView(QueryWorker *worker, QWidget *parent)
    : QWidget(parent), m_worker(worker), m_summary(new QLabel(this)),
      m_runs(makeListTable({tr("Channel"), tr("Day"), tr("Lines"), tr("Matched"), tr("Breaks"),
                            tr("Unexplained"), tr("Run at")},
                           tr("Reconciliation runs"), this)),
      m_ages(makeListTable({tr("Class"), tr("0–1 d"), tr("2–7 d"), tr("8–30 d"), tr("> 30 d")},
                           tr("Open breaks by age"), this)),
      m_breaks(
          makeListTable({tr("Day"), tr("Channel"), tr("Class"), tr("Kind"), tr("Reference"),
                         tr("Channel says"), tr("keel has"), tr("Status"), tr("Age"), tr("Case")},
                        tr("Open breaks"), this)),
      m_channelSide(new QLabel(this)), m_keelSide(new QLabel(this))
{
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    m_summary->setAccessibleName(tr("Reconciliation summary"));
    m_summary->setWordWrap(true);
    auto *refreshButton = new QPushButton(tr("&Refresh"), this);
    connect(refreshButton, &QPushButton::clicked, this, &ReconView::refresh);
    top->addWidget(m_summary, 1);
    top->addWidget(refreshButton);
    layout->addLayout(top);
    auto *overview = new QHBoxLayout;
    overview->addWidget(m_runs, 3);
    m_ages->setMaximumWidth(420);
    overview->addWidget(m_ages, 2);
    auto *split = new QSplitter(Qt::Vertical, this);
    auto *upper = new QWidget(this);
    upper->setLayout(overview);
    overview->setContentsMargins(0, 0, 0, 0);
    split->addWidget(upper);
    split->addWidget(breaksPane());
    split->addWidget(detailPane());
    split->setStretchFactor(1, 2);
    split->setSizes({190, 420, 150});
    layout->addWidget(split, 1);
    connect(m_breaks, &QTableWidget::itemSelectionChanged, this, &ReconView::loadDetail);
}

QWidget *ReconView::breaksPane()
{
    auto *pane = new QWidget(this);
    auto *layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("<b>Open breaks</b>, oldest day first"), pane));
    layout->addWidget(m_breaks, 1);
    return pane;
}

QWidget *ReconView::detailPane()
{
    auto *pane = new QWidget(this);
    auto *layout = new QHBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    for (QLabel *side : {m_channelSide, m_keelSide}) {
        side->setWordWrap(true);
        side->setAlignment(Qt::AlignTop | Qt::AlignLeft);
        side->setTextInteractionFlags(Qt::TextSelectableByMouse);
        side->setFrameShape(QFrame::StyledPanel);
        side->setMargin(8);
        layout->addWidget(side, 1);
    }
    m_channelSide->setAccessibleName(tr("The channel's lines"));
    m_keelSide->setAccessibleName(tr("keel's record"));
    m_channelSide->setText(tr("Select a break to see the channel's lines beside keel's record."));
    return pane;
}

void ReconView::refresh()
{
    m_pending = 3;
    const auto done = [this] {
        if (--m_pending == 0)
            Q_EMIT refreshed();
    };
    m_worker->submit<QList<ReconRunRow>>(
        this, [](QSqlDatabase db) { return ReconQuery::runs(db, RunLimit); },
        [this, done](const Result<QList<ReconRunRow>> &runs) {
            if (runs)
                showRuns(*runs);
            else
                Q_EMIT failed(runs.error().message);
            done();
        });
    m_worker->submit<QList<ReconAgeRow>>(
        this, [](QSqlDatabase db) { return ReconQuery::ages(db); },
        [this, done](const Result<QList<ReconAgeRow>> &ages) {
            if (ages)
                showAges(*ages);
            else
                Q_EMIT failed(ages.error().message);
            done();
        });
    m_worker->submit<QList<ReconBreakRow>>(
        this, [](QSqlDatabase db) { return ReconQuery::openBreaks(db, BreakLimit); },
        [this, done](const Result<QList<ReconBreakRow>> &breaks) {
            if (breaks)
                showBreaks(*breaks);
            else
                Q_EMIT failed(breaks.error().message);
            done();
        });
}

void ReconView::showRuns(const QList<ReconRunRow> &runs)
{
    m_runs->setRowCount(int(runs.size()));
    QMap<QString, ReconMoney> total;
    for (int row = 0; row < runs.size(); ++row) {
        const ReconRunRow &run = runs[row];
        const qint64 judged = run.matched + run.breaks;
        fillRow(m_runs, row,
                {run.channel, run.date.toString(Qt::ISODate), QString::number(run.lines),
                 judged == 0 ? QStringLiteral("–")
                             : QStringLiteral("%1 (%2 %)")
                                   .arg(run.matched)
                                   .arg(QLocale().toString(100.0 * run.matched / judged, 'f', 2)),
                 QString::number(run.breaks), differences(run.difference),
                 localTimeText(run.runAt)});
        for (const ReconMoney &amount : run.difference) {
            ReconMoney &sum = total[amount.currency];
            sum = {amount.currency, amount.exponent, sum.amount + amount.amount};
        }
    }
    m_runs->resizeColumnsToContents();
    m_summary->setText(
        runs.isEmpty()
            ? tr("No reconciliation has run yet: `keel recon import` a channel's statement, then "
                 "`keel recon run` its day.")
            : tr("%n day(s) reconciled · unexplained %1", nullptr, int(runs.size()))
                  .arg(total.isEmpty() ? tr("nothing") : differences(total.values())));
}

void ReconView::showAges(const QList<ReconAgeRow> &ages)
{
    m_ages->setRowCount(int(ages.size()));
    for (int row = 0; row < ages.size(); ++row) {
        QStringList cells{ages[row].breakClass};
        for (qint64 count : ages[row].byAge)
            cells << QString::number(count);
        fillRow(m_ages, row, cells);
    }
    m_ages->resizeColumnsToContents();
}

void ReconView::showBreaks(const QList<ReconBreakRow> &breaks)
{
    m_shown = breaks;
    QSignalBlocker quiet(m_breaks);
    m_breaks->setRowCount(int(breaks.size()));
    for (int row = 0; row < breaks.size(); ++row) {
        const ReconBreakRow &found = breaks[row];
        fillRow(
            m_breaks, row,
            {found.date.toString(Qt::ISODate), found.channel, found.breakClass, found.kind,
             found.reference, money(found.channelAmount),
             money(found.keelAmount, found.channelAmount.currency, found.channelAmount.exponent),
             found.status, tr("%n day(s)", nullptr, found.ageDays),
             found.caseId == 0 ? QString() : tr("#%1 %2").arg(found.caseId).arg(found.caseStatus)});
    }
    m_breaks->resizeColumnsToContents();
}

void ReconView::selectBreak(int row)
{
    m_breaks->selectRow(row);
}

void ReconView::loadDetail()
{
    const QList<QTableWidgetItem *> selected = m_breaks->selectedItems();
    if (selected.isEmpty())
        return;
    const int row = selected.constFirst()->row();
    if (row < 0 || row >= m_shown.size())
        return;
    const ReconBreakRow found = m_shown[row];
    m_worker->submit<ReconBreakDetail>(
        this, [found](QSqlDatabase db) { return ReconQuery::detail(db, found); },
        [this, found](const Result<ReconBreakDetail> &detail) {
            if (!detail) {
                Q_EMIT failed(detail.error().message);
                return;
            }
            showDetail(found, *detail);
        });
}

void ReconView::showDetail(const ReconBreakRow &found, const ReconBreakDetail &detail)
{
    QStringList lines;
    for (const ReconLineRow &line : detail.lines)
        lines << tr("%1 · %2 · fee %3 · %4 · statement %5")
                     .arg(line.channelReference, money(line.amount),
                          money(line.fee, line.amount.currency, line.amount.exponent),
                          localTimeText(line.occurredAt))
                     .arg(line.statementId);
    m_channelSide->setText(
        tr("<b>The channel (%1)</b> reports %2 %3:<br>%4")
            .arg(found.channel.toHtmlEscaped(), found.kind, found.reference.toHtmlEscaped(),
                 lines.isEmpty() ? tr("no line")
                                 : lines.join(QStringLiteral("<br>")).toHtmlEscaped()));
    const QString keel =
        !detail.keelKnows
            ? tr("keel has no %1 %2.").arg(found.kind, found.reference.toHtmlEscaped())
            : tr("%1 %2 is %3, for %4; captured %5, refunded %6; created %7.")
                  .arg(found.kind, found.reference.toHtmlEscaped(), detail.keelState,
                       money(detail.keelAmount),
                       money(detail.captured, detail.keelAmount.currency,
                             detail.keelAmount.exponent),
                       money(detail.refunded, detail.keelAmount.currency,
                             detail.keelAmount.exponent),
                       localTimeText(detail.createdAt));
    m_keelSide->setText(
        tr("<b>keel</b> books %1 for it (%2, %3).<br>%4<br>%5")
            .arg(
                money(found.keelAmount, found.channelAmount.currency, found.channelAmount.exponent),
                found.breakClass, found.status, keel,
                found.caseId == 0
                    ? tr("No case yet: one opens once the settlement lag has passed.")
                    : tr("Suspense case #%1 (%2).").arg(found.caseId).arg(found.caseStatus)));
    Q_EMIT breakShown();
}

} // namespace keel
