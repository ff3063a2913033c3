#include "ui/ReconView.h"

#include "core/ops/BreakResolutions.h"
#include "core/read/HistoryQuery.h"
#include "ui/ListTables.h"
#include "ui/PagedListPane.h"
#include "ui/ProposeDialog.h"
#include "ui/QueryWorker.h"

#include <QDateEdit>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace keel {
namespace {

constexpr int RunLimit = 200;
// Breaks come a page at a time, by keyset: the first page costs the same with
// ten open breaks or a million.
constexpr int BreakPage = 200;
constexpr int AcceptDaysByDefault = 30;
constexpr int AcceptDaysAtMost = 90; // as migration 0026 allows

// Integer minor units written in major units: never through a double.
QString money(qint64 amount, const QString &currency, int exponent)
{
    return HistoryQuery::formatAmount(amount, exponent) + u' ' + currency;
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
      m_statements(makeListTable({tr("Statement"), tr("Channel"), tr("Format"), tr("Lines"),
                                  tr("Imported"), tr("By"), tr("SHA-256"), tr("Withdrawn")},
                                 tr("Statements"), this)),
      m_withdraw(new QPushButton(tr("&Withdraw…"), this)),
      m_ages(makeListTable({tr("Class"), tr("0–1 d"), tr("2–7 d"), tr("8–30 d"), tr("> 30 d")},
                           tr("Open breaks by age"), this)),
      m_breaks(
          makeListTable({tr("Day"), tr("Channel"), tr("Class"), tr("Kind"), tr("Reference"),
                         tr("Channel says"), tr("keel has"), tr("Status"), tr("Age"), tr("Case")},
                        tr("Open breaks"), this, QAbstractItemView::ExtendedSelection)),
      m_moreBreaks(new QPushButton(tr("Load &more"), this)), m_channelSide(new QLabel(this)),
      m_keelSide(new QLabel(this)), m_timeline(new QLabel(this)),
      m_match(new QPushButton(tr("&Match by hand…"), this)),
      m_accept(new QPushButton(tr("&Accept until…"), this)), m_acceptUntil(new QDateEdit(this)),
      m_adjustFee(new QPushButton(tr("Book &fee adjustment…"), this)),
      m_takeBack(new QPushButton(tr("&Take back…"), this))
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
    auto *tabs = new QTabWidget(this);
    tabs->addTab(m_runs, tr("Runs"));
    tabs->addTab(statementsPane(), tr("Statements"));
    overview->addWidget(tabs, 3);
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
    connect(m_breaks, &QTableWidget::itemSelectionChanged, this, &ReconView::updateResolutions);
    updateResolutions();
}

QWidget *ReconView::breaksPane()
{
    auto *pane = new QWidget(this);
    auto *layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("<b>Open breaks</b>, oldest day first"), pane));
    layout->addWidget(pagedListPane(m_breaks, m_moreBreaks, pane), 1);
    layout->addWidget(resolutionBar());
    connect(m_moreBreaks, &QPushButton::clicked, this, &ReconView::loadMoreBreaks);
    return pane;
}

QWidget *ReconView::statementsPane()
{
    auto *pane = new QWidget(this);
    auto *layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_statements, 1);
    auto *row = new QHBoxLayout;
    m_withdraw->setToolTip(tr("Withdraw the selected statement, imported wrong: its lines stop "
                              "counting, the fees it booked come back, and the corrected file "
                              "can be imported. A second person approves it."));
    m_withdraw->setEnabled(false);
    connect(m_withdraw, &QPushButton::clicked, this, &ReconView::proposeWithdrawal);
    connect(m_statements, &QTableWidget::itemSelectionChanged, this,
            [this] { m_withdraw->setEnabled(selectedStatement() != nullptr); });
    row->addWidget(m_withdraw);
    row->addStretch(1);
    layout->addLayout(row);
    return pane;
}

const ReconStatementRow *ReconView::selectedStatement() const
{
    const QModelIndexList rows = m_statements->selectionModel()->selectedRows();
    if (rows.size() != 1 || rows.first().row() >= m_statementRows.size())
        return nullptr;
    const ReconStatementRow &statement = m_statementRows[rows.first().row()];
    return BreakResolutions::canWithdraw(statement) ? &statement : nullptr;
}

void ReconView::showStatements(const QList<ReconStatementRow> &statements)
{
    m_statementRows = statements;
    QSignalBlocker quiet(m_statements);
    m_statements->setRowCount(int(statements.size()));
    for (int row = 0; row < statements.size(); ++row) {
        const ReconStatementRow &statement = statements[row];
        fillRow(
            m_statements, row,
            {QString::number(statement.id), statement.channel, statement.format,
             QString::number(statement.lines), localTimeText(statement.importedAt),
             statement.importedBy, statement.sha256.left(16),
             statement.withdrawnAt.isValid() ? localTimeText(statement.withdrawnAt) : QString()});
    }
    m_statements->resizeColumnsToContents();
    m_withdraw->setEnabled(selectedStatement() != nullptr);
}

ProposeDialog *ReconView::proposeWithdrawal()
{
    const ReconStatementRow *statement = selectedStatement();
    if (!statement)
        return nullptr;
    return openProposal(
        BreakResolutions::withdrawal(*statement),
        tr("Statement %1 is withdrawn: its %2 lines stop counting, the fees its import booked "
           "come back from the channel's fee account, and its days are to be reconciled again. "
           "The file stays on the record.")
            .arg(statement->id)
            .arg(statement->lines),
        {QStringLiteral("statement %1  %2 %3  %4 lines  sha256 %5")
             .arg(statement->id)
             .arg(statement->channel, statement->format)
             .arg(statement->lines)
             .arg(statement->sha256)});
}

QWidget *ReconView::resolutionBar()
{
    auto *bar = new QWidget(this);
    auto *row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    m_match->setToolTip(tr("Select a missing_at_keel and a missing_at_channel break of the same "
                           "amount: the channel reported keel's movement under its own "
                           "reference. Both resolve, and money parked for them returns."));
    m_accept->setToolTip(tr("Accept the selected break with a note until the date: it leaves "
                            "the difference and opens no case until then."));
    m_adjustFee->setToolTip(tr("Book what the channel took beyond the contracted fee as a claim "
                               "on the channel, and resolve the fee_variance."));
    const QDate today = QDate::currentDate();
    m_acceptUntil->setCalendarPopup(true);
    m_acceptUntil->setDisplayFormat(QStringLiteral("yyyy-MM-dd"));
    m_acceptUntil->setDateRange(today, today.addDays(AcceptDaysAtMost));
    m_acceptUntil->setDate(today.addDays(AcceptDaysByDefault));
    m_acceptUntil->setAccessibleName(tr("Accept until"));
    connect(m_match, &QPushButton::clicked, this, &ReconView::proposeMatch);
    connect(m_accept, &QPushButton::clicked, this, &ReconView::proposeAcceptance);
    connect(m_adjustFee, &QPushButton::clicked, this, &ReconView::proposeFeeAdjustment);
    m_takeBack->setToolTip(tr("The channel took back part or all of this payment (a dispute "
                              "lost): take what keel holds beyond it out of the clearing "
                              "account, from the merchant or as the company's loss."));
    auto *bearers = new QMenu(m_takeBack);
    connect(bearers->addAction(tr("From the &merchant…")), &QAction::triggered, this,
            [this] { proposeTakeBack(BreakResolutions::TakeBackBearer::Merchant); });
    connect(bearers->addAction(tr("As operational &loss…")), &QAction::triggered, this,
            [this] { proposeTakeBack(BreakResolutions::TakeBackBearer::Loss); });
    m_takeBack->setMenu(bearers);
    row->addWidget(new QLabel(tr("Resolve, with a second person's approval:"), bar));
    row->addWidget(m_match);
    row->addWidget(m_accept);
    row->addWidget(m_acceptUntil);
    row->addWidget(m_adjustFee);
    row->addWidget(m_takeBack);
    row->addStretch(1);
    return bar;
}

QList<ReconBreakRow> ReconView::selectedBreaks() const
{
    QList<ReconBreakRow> chosen;
    for (const QModelIndex &index : m_breaks->selectionModel()->selectedRows())
        if (index.row() >= 0 && index.row() < m_shown.size())
            chosen.append(m_shown[index.row()]);
    return chosen;
}

void ReconView::updateResolutions()
{
    const QList<ReconBreakRow> chosen = selectedBreaks();
    m_match->setEnabled(chosen.size() == 2 && BreakResolutions::canMatch(chosen[0], chosen[1]));
    const bool one = chosen.size() == 1;
    m_accept->setEnabled(one && BreakResolutions::canAccept(chosen[0]));
    m_acceptUntil->setEnabled(m_accept->isEnabled());
    m_adjustFee->setEnabled(one && BreakResolutions::canAdjustFee(chosen[0]));
    m_takeBack->setEnabled(one && BreakResolutions::canTakeBack(chosen[0]));
}

ProposeDialog *ReconView::openProposal(const ProposalRequest &request, const QString &change,
                                       const QStringList &preview)
{
    auto *dialog = new ProposeDialog(m_worker, request, change, preview, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ProposeDialog::proposed, this, &ReconView::proposed);
    dialog->open();
    return dialog;
}

namespace {

QString breakLine(const ReconBreakRow &found)
{
    return QStringLiteral("break %1  %2 %3 %4 %5  (channel %6, keel %7)")
        .arg(found.id)
        .arg(found.date.toString(Qt::ISODate), found.channel, found.breakClass, found.kind,
             found.reference, money(found.channelAmount),
             money(found.keelAmount, found.channelAmount.currency, found.channelAmount.exponent));
}

} // namespace

ProposeDialog *ReconView::proposeMatch()
{
    const QList<ReconBreakRow> chosen = selectedBreaks();
    if (chosen.size() != 2 || !m_match->isEnabled())
        return nullptr;
    const ReconBreakRow &atKeel =
        chosen[0].breakClass == QLatin1String("missing_at_keel") ? chosen[0] : chosen[1];
    const ReconBreakRow &atChannel = &atKeel == &chosen[0] ? chosen[1] : chosen[0];
    return openProposal(
        BreakResolutions::match(atKeel, atChannel),
        tr("The channel's %1 %2 is keel's %3: both breaks resolve, and money a case of either "
           "parked in suspense returns to the clearing account.")
            .arg(atKeel.kind, atKeel.reference, atChannel.reference),
        {breakLine(atKeel), breakLine(atChannel)});
}

ProposeDialog *ReconView::proposeAcceptance()
{
    const QList<ReconBreakRow> chosen = selectedBreaks();
    if (chosen.size() != 1 || !m_accept->isEnabled())
        return nullptr;
    const QDate until = m_acceptUntil->date();
    return openProposal(
        BreakResolutions::accept(chosen[0], until),
        tr("Break %1 is accepted until the end of %2 (%3's day): it leaves the unexplained "
           "difference and opens no case until then. Nothing is posted.")
            .arg(chosen[0].id)
            .arg(until.toString(Qt::ISODate), chosen[0].channel),
        {breakLine(chosen[0])});
}

ProposeDialog *ReconView::proposeFeeAdjustment()
{
    const QList<ReconBreakRow> chosen = selectedBreaks();
    if (chosen.size() != 1 || !m_adjustFee->isEnabled())
        return nullptr;
    const ReconBreakRow &found = chosen[0];
    const ReconMoney excess{found.channelAmount.currency, found.channelAmount.exponent,
                            found.channelAmount.amount - found.keelAmount};
    return openProposal(
        BreakResolutions::feeAdjustment(found),
        tr("%1 moves from the channel's fee expense to channel_fee_claims:%2:%3 (a negative "
           "amount is owed to the channel), and break %4 resolves.")
            .arg(money(excess), found.channel, excess.currency)
            .arg(found.id),
        {breakLine(found)});
}

ProposeDialog *ReconView::proposeTakeBack(BreakResolutions::TakeBackBearer bearer)
{
    const QList<ReconBreakRow> chosen = selectedBreaks();
    if (chosen.size() != 1 || !m_takeBack->isEnabled())
        return nullptr;
    const ReconBreakRow &found = chosen[0];
    const ReconMoney taken{found.channelAmount.currency, found.channelAmount.exponent,
                           found.keelAmount - found.channelAmount.amount};
    const QString from =
        bearer == BreakResolutions::TakeBackBearer::Merchant
            ? tr("the merchant of charge %1 (its payable balance)").arg(found.reference)
            : tr("operational_loss:%1").arg(taken.currency);
    return openProposal(BreakResolutions::takeBack(found, bearer),
                        tr("%1 leaves channel_clearing:%2, charged to %3, so that keel holds what "
                           "%4 holds; break %5 resolves.")
                            .arg(money(taken), taken.currency, from, found.channel)
                            .arg(found.id),
                        {breakLine(found)});
}

QWidget *ReconView::detailPane()
{
    auto *pane = new QWidget(this);
    auto *layout = new QHBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    for (QLabel *side : {m_channelSide, m_keelSide, m_timeline}) {
        side->setWordWrap(true);
        side->setAlignment(Qt::AlignTop | Qt::AlignLeft);
        side->setTextInteractionFlags(Qt::TextSelectableByMouse);
        side->setFrameShape(QFrame::StyledPanel);
        side->setMargin(8);
        layout->addWidget(side, 1);
    }
    m_channelSide->setAccessibleName(tr("The channel's lines"));
    m_keelSide->setAccessibleName(tr("keel's record"));
    m_timeline->setAccessibleName(tr("The break's timeline"));
    m_channelSide->setText(tr("Select a break to see the channel's lines beside keel's record."));
    return pane;
}

void ReconView::refresh()
{
    m_pending = 4;
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
    m_worker->submit<QList<ReconStatementRow>>(
        this, [](QSqlDatabase db) { return ReconQuery::statements(db, RunLimit); },
        [this, done](const Result<QList<ReconStatementRow>> &statements) {
            if (statements)
                showStatements(*statements);
            else
                Q_EMIT failed(statements.error().message);
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
    loadBreaks({}, done);
}

void ReconView::loadMoreBreaks()
{
    if (!m_shown.isEmpty())
        loadBreaks(m_shown.constLast(), [this] { Q_EMIT breaksLoaded(); });
}

void ReconView::loadBreaks(const std::optional<ReconBreakRow> &after,
                           const std::function<void()> &done)
{
    // A first page starts the list again: a further page asked for before it
    // follows a list that is gone, and is dropped.
    if (!after)
        ++m_breakList;
    m_moreBreaks->setEnabled(false);
    m_worker->submit<QList<ReconBreakRow>>(
        this, [after](QSqlDatabase db) { return ReconQuery::openBreaks(db, BreakPage, after); },
        [this, append = after.has_value(), list = m_breakList,
         done](const Result<QList<ReconBreakRow>> &breaks) {
            if (list != m_breakList) {
                done();
                return;
            }
            if (breaks) {
                showBreaks(*breaks, append);
            } else {
                m_moreBreaks->setEnabled(append);
                Q_EMIT failed(breaks.error().message);
            }
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

void ReconView::showBreaks(const QList<ReconBreakRow> &breaks, bool append)
{
    const int first = append ? int(m_shown.size()) : 0;
    m_shown = append ? m_shown + breaks : breaks;
    m_moreBreaks->setEnabled(breaks.size() == BreakPage);
    const auto statusText = [this](const ReconBreakRow &found) {
        if (found.awaitingRun)
            return tr("%1, awaiting a run").arg(found.status);
        return found.acceptedUntil.isValid()
                   ? tr("accepted until %1").arg(localTimeText(found.acceptedUntil))
                   : found.status;
    };
    QSignalBlocker quiet(m_breaks);
    m_breaks->setRowCount(int(m_shown.size()));
    for (int row = first; row < m_shown.size(); ++row) {
        const ReconBreakRow &found = m_shown[row];
        fillRow(
            m_breaks, row,
            {found.date.toString(Qt::ISODate), found.channel, found.breakClass, found.kind,
             found.reference, money(found.channelAmount),
             money(found.keelAmount, found.channelAmount.currency, found.channelAmount.exponent),
             statusText(found), tr("%n day(s)", nullptr, found.ageDays),
             found.caseId == 0 ? QString() : tr("#%1 %2").arg(found.caseId).arg(found.caseStatus)});
    }
    m_breaks->resizeColumnsToContents();
    updateResolutions();
}

void ReconView::selectBreak(int row)
{
    selectBreaks({row});
}

void ReconView::selectBreaks(const QList<int> &rows)
{
    m_breaks->clearSelection();
    for (int row : rows)
        m_breaks->selectionModel()->select(m_breaks->model()->index(row, 0),
                                           QItemSelectionModel::Select | QItemSelectionModel::Rows);
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
    QString refunded; // the charge a refund keel has no record of came from
    for (const ReconLineRow &line : detail.lines)
        if (refunded.isEmpty())
            refunded = line.paymentReference;
    const QString keel =
        !detail.keelKnows && !refunded.isEmpty()
            ? tr("keel has no %1 %2; the channel's line names charge %3 as the payment it "
                 "gave money back from.")
                  .arg(found.kind, found.reference.toHtmlEscaped(), refunded.toHtmlEscaped())
        : !detail.keelKnows
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
                    : tr("Suspense case #%1 (%2).").arg(found.caseId).arg(found.caseStatus)) +
        (found.awaitingRun
             ? tr("<br><b>A statement line it bore on was withdrawn.</b> Run %1's %2 again: "
                  "until a run has judged it, neither it nor its case can be resolved.")
                   .arg(found.channel.toHtmlEscaped(), found.date.toString(Qt::ISODate))
             : QString()));
    QStringList moments;
    for (const ReconBreakEvent &event : detail.timeline)
        moments << tr("%1 · %2 · %3")
                       .arg(localTimeText(event.at), event.source, event.summary)
                       .toHtmlEscaped();
    m_timeline->setText(tr("<b>Timeline</b><br>%1").arg(moments.join(QStringLiteral("<br>"))));
    Q_EMIT breakShown();
}

} // namespace keel
