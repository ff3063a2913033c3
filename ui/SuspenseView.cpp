#include "ui/SuspenseView.h"

#include "core/ops/ActionDesk.h"
#include "core/ops/CaseDesk.h"
#include "core/ops/CaseResolutions.h"
#include "ui/AdjustmentDialog.h"
#include "ui/CaseSearchBar.h"
#include "ui/PagedListPane.h"
#include "ui/ProposeDialog.h"
#include "ui/QueryWorker.h"
#include "ui/RecordExport.h"
#include "ui/StatusWords.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace keel {
namespace {

constexpr int PageSize = 200;

// Seconds and the zone: a case's times are compared with channels' and banks'.
QString when(const QDateTime &at)
{
    return QLocale().toString(at.toLocalTime(), QStringLiteral("yyyy-MM-dd HH:mm:ss t"));
}

QString age(const QDateTime &since)
{
    const qint64 hours = since.secsTo(QDateTime::currentDateTimeUtc()) / 3600;
    return hours < 48 ? SuspenseView::tr("%1 h").arg(hours)
                      : SuspenseView::tr("%1 d").arg(hours / 24);
}

// Money the channel owes (migration 0050) reads as owed, not as held.
QString caseAmount(const SuspenseCaseRow &item)
{
    const QString amount = HistoryQuery::formatAmount(item.amount, item.exponent);
    return item.owed ? SuspenseView::tr("owed %1").arg(amount) : amount;
}

} // namespace

SuspenseView::SuspenseView(QueryWorker *worker, QWidget *parent)
    : QWidget(parent), m_worker(worker), m_status(new QComboBox(this)),
      m_mine(new QCheckBox(tr("&Mine only"), this)),
      m_overdue(new QCheckBox(tr("Past &deadline only"), this)),
      m_notices(new QCheckBox(tr("From channel n&otices only"), this)),
      m_search(new CaseSearchBar(this)), m_queue(new QTableWidget(0, 13, this)),
      m_more(new QPushButton(tr("&Load more"), this)), m_header(new QLabel(this)),
      m_trail(new QTreeWidget(this)), m_result(new QLabel(this)),
      m_take(new QPushButton(tr("&Take case"), this)),
      m_note(new QPushButton(tr("Add &note…"), this)),
      m_retry(new QPushButton(tr("Retry &compensation…"), this)),
      m_adjust(new QPushButton(tr("Ad&just ledger…"), this)),
      m_writeOff(new QPushButton(tr("&Write off…"), this)),
      m_giveBack(new QPushButton(tr("&Give back…"), this)),
      m_chargeOwed(new QPushButton(tr("C&harge owed…"), this))
{
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(filterBar());
    layout->addWidget(m_search);
    connect(m_search, &CaseSearchBar::searchRequested, this, &SuspenseView::refresh);
    // A notice's case shows what the channel said beside what keel has.
    m_queue->setHorizontalHeaderLabels({tr("Case"), tr("Opened"), tr("Age"), tr("Amount"),
                                        tr("Currency"), tr("Owner"), tr("Status"), tr("Deadline"),
                                        tr("Saga"), tr("Charge"), tr("Charge state"),
                                        tr("Channel notice"), tr("Reason")});
    m_queue->setAccessibleName(tr("Suspense cases"));
    m_queue->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_queue->setSelectionMode(QAbstractItemView::SingleSelection);
    m_queue->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_queue->verticalHeader()->hide();
    m_queue->horizontalHeader()->setStretchLastSection(true);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(pagedListPane(m_queue, m_more, split));
    split->addWidget(detailPane());
    connect(m_more, &QPushButton::clicked, this, &SuspenseView::loadMore);
    layout->addWidget(split, 1);
    connect(m_queue, &QTableWidget::itemSelectionChanged, this, [this] {
        const QModelIndexList rows = m_queue->selectionModel()->selectedRows();
        if (!rows.isEmpty())
            selectCase(rows.first().row());
    });
    connect(m_take, &QPushButton::clicked, this, &SuspenseView::takeSelected);
    connect(m_note, &QPushButton::clicked, this, &SuspenseView::askForNote);
    connect(m_retry, &QPushButton::clicked, this, [this] {
        if (ProposeDialog *dialog = proposeRetryCompensation())
            dialog->open();
    });
    connect(m_writeOff, &QPushButton::clicked, this, [this] {
        if (ProposeDialog *dialog = proposeWriteOff())
            dialog->open();
    });
    auto *receivers = new QMenu(m_giveBack);
    connect(receivers->addAction(tr("To the &merchant…")), &QAction::triggered, this, [this] {
        if (ProposeDialog *dialog = proposeGiveBack(CaseResolutions::GiveBackTo::Merchant))
            dialog->open();
    });
    connect(receivers->addAction(tr("To operational &loss…")), &QAction::triggered, this, [this] {
        if (ProposeDialog *dialog = proposeGiveBack(CaseResolutions::GiveBackTo::Loss))
            dialog->open();
    });
    m_giveBack->setMenu(receivers);
    auto *bearers = new QMenu(m_chargeOwed);
    connect(bearers->addAction(tr("To the &merchant…")), &QAction::triggered, this, [this] {
        if (ProposeDialog *dialog = proposeChargeOwed(CaseResolutions::OwedBy::Merchant))
            dialog->open();
    });
    connect(bearers->addAction(tr("As operational &loss…")), &QAction::triggered, this, [this] {
        if (ProposeDialog *dialog = proposeChargeOwed(CaseResolutions::OwedBy::Loss))
            dialog->open();
    });
    m_chargeOwed->setMenu(bearers);
    connect(m_adjust, &QPushButton::clicked, this, [this] {
        if (AdjustmentDialog *dialog = composeAdjustment()) {
            dialog->addLine();
            dialog->open();
        }
    });
    updateButtons();
}

QWidget *SuspenseView::filterBar()
{
    auto *bar = new QWidget(this);
    auto *row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    m_status->addItem(tr("Open and in review"), int(SuspenseCaseFilter::Status::Open));
    m_status->addItem(tr("Resolved"), int(SuspenseCaseFilter::Status::Resolved));
    m_status->addItem(tr("All cases"), int(SuspenseCaseFilter::Status::All));
    m_status->setAccessibleName(tr("Cases"));
    auto *refreshButton = new QPushButton(tr("&Refresh"), bar);
    auto *exportButton = new QPushButton(tr("E&xport CSV…"), bar);
    connect(exportButton, &QPushButton::clicked, this, [this] {
        if (const QString name =
                RecordExport::askFileName(this, QStringLiteral("suspense-cases.csv"));
            !name.isEmpty())
            exportTo(name);
    });
    for (QCheckBox *box : {m_mine, m_overdue, m_notices})
        connect(box, &QCheckBox::toggled, this, &SuspenseView::refresh);
    connect(m_status, &QComboBox::currentIndexChanged, this, &SuspenseView::refresh);
    connect(refreshButton, &QPushButton::clicked, this, &SuspenseView::refresh);
    row->addWidget(m_status);
    row->addWidget(m_mine);
    row->addWidget(m_overdue);
    row->addWidget(m_notices);
    row->addStretch(1);
    row->addWidget(refreshButton);
    row->addWidget(exportButton);
    return bar;
}

QWidget *SuspenseView::detailPane()
{
    auto *pane = new QWidget(this);
    auto *layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_header->setAccessibleName(tr("Case"));
    layout->addWidget(m_header);
    m_trail->setHeaderLabels({tr("Time"), tr("Source"), tr("What happened")});
    m_trail->setAccessibleName(tr("Money trail"));
    m_trail->setRootIsDecorated(false);
    layout->addWidget(m_trail, 1);
    auto *buttons = new QHBoxLayout;
    m_result->setWordWrap(true);
    m_result->setAccessibleName(tr("Result"));
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    buttons->addWidget(m_result, 1);
    buttons->addWidget(m_take);
    buttons->addWidget(m_note);
    buttons->addWidget(m_retry);
    buttons->addWidget(m_adjust);
    buttons->addWidget(m_writeOff);
    buttons->addWidget(m_giveBack);
    buttons->addWidget(m_chargeOwed);
    layout->addLayout(buttons);
    return pane;
}

void SuspenseView::setAccess(bool canWork, bool canNote, const QStringList &trailSources)
{
    m_canWork = canWork;
    m_canNote = canNote;
    m_sources = trailSources;
    const QString why = tr("Working cases needs keel_operator.");
    m_take->setToolTip(canWork ? QString() : why);
    for (QPushButton *button : {m_retry, m_adjust, m_writeOff, m_giveBack, m_chargeOwed})
        button->setToolTip(canWork ? QString() : why);
    if (canWork)
        m_chargeOwed->setToolTip(tr("A run parked money keel booked that the channel does not "
                                    "show (a dispute lost, a payment never made): whoever bears "
                                    "it is charged, and suspense is cleared."));
    if (canWork)
        m_giveBack->setToolTip(tr("The channel gave again money it had taken back (a dispute "
                                  "reversed, or the statement that showed it withdrawn): what the "
                                  "case holds returns to whoever bore the take-back, and the "
                                  "charge may be refunded again."));
    m_note->setToolTip(canNote ? QString() : tr("Notes need keel_operator or keel_approver."));
    updateButtons();
}

Result<SuspenseCaseFilter> SuspenseView::filterOnScreen() const
{
    SuspenseCaseFilter filter;
    filter.status = SuspenseCaseFilter::Status(m_status->currentData().toInt());
    filter.mineOnly = m_mine->isChecked();
    filter.overdueOnly = m_overdue->isChecked();
    filter.noticesOnly = m_notices->isChecked();
    filter.limit = PageSize;
    if (Status searched = m_search->narrow(filter); !searched)
        return searched.error();
    return filter;
}

void SuspenseView::refresh()
{
    Result<SuspenseCaseFilter> filter = filterOnScreen();
    if (!filter) {
        Q_EMIT failed(filter.error().message);
        return;
    }
    m_filter = *filter;
    load(m_filter, false);
}

QString SuspenseView::filterText() const
{
    QStringList said{m_status->currentText()};
    for (const QCheckBox *box : {m_mine, m_overdue, m_notices})
        if (box->isChecked())
            said << box->text().remove(u'&');
    if (const QString search = m_search->describe(); !search.isEmpty())
        said << search;
    return said.join(QStringLiteral("; "));
}

void SuspenseView::exportTo(const QString &fileName)
{
    // What the file says it holds (its first line) is what is on the screen now.
    Result<SuspenseCaseFilter> filter = filterOnScreen();
    if (!filter) {
        Q_EMIT failed(filter.error().message);
        return;
    }
    RecordExport::toFile(
        m_worker, this, fileName, QStringLiteral("suspense_cases"), filterText(),
        [filter = *filter, text = filterText()](QSqlDatabase db, QIODevice &out) {
            return SuspenseQuery::exportCsv(db, filter, text, out);
        },
        [this](bool ok, const QString &message) {
            m_result->setText(message);
            Q_EMIT exported(ok, message);
        });
}

void SuspenseView::loadMore()
{
    if (m_rows.isEmpty())
        return;
    SuspenseCaseFilter next = m_filter;
    next.after = m_rows.constLast().cursor();
    load(next, true);
}

void SuspenseView::load(const SuspenseCaseFilter &filter, bool append)
{
    m_more->setEnabled(false);
    m_worker->submit<QList<SuspenseCaseRow>>(
        this, [filter](QSqlDatabase db) { return SuspenseQuery::queue(db, filter); },
        [this, append](const Result<QList<SuspenseCaseRow>> &rows) {
            if (!rows) {
                Q_EMIT failed(rows.error().message);
                return;
            }
            showQueue(*rows, append);
        });
}

void SuspenseView::showQueue(const QList<SuspenseCaseRow> &rows, bool append)
{
    const qint64 wasSelected = selected() ? selected()->id : 0;
    const int first = append ? int(m_rows.size()) : 0;
    m_rows = append ? m_rows + rows : rows;
    m_more->setEnabled(rows.size() == PageSize);
    QSignalBlocker quiet(m_queue);
    m_queue->setRowCount(int(m_rows.size()));
    int keep = -1;
    for (int row = first; row < m_rows.size(); ++row) {
        const SuspenseCaseRow &item = m_rows[row];
        const QStringList cells{QString::number(item.id),
                                when(item.openedAt),
                                age(item.openedAt),
                                item.currency.isEmpty() ? QString() : caseAmount(item),
                                item.currency,
                                item.owner,
                                statusWord(item.status),
                                item.overdue ? tr("overdue since %1").arg(when(item.deadline))
                                             : when(item.deadline),
                                item.sagaId,
                                item.chargeId,
                                statusWord(item.chargeState),
                                item.notice,
                                item.reason};
        for (int column = 0; column < cells.size(); ++column) {
            auto *cell = new QTableWidgetItem(cells[column]);
            if (item.overdue && column == 7)
                cell->setForeground(QColor(0xc6, 0x28, 0x28));
            if (column == 3)
                cell->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_queue->setItem(row, column, cell);
        }
        if (item.id == wasSelected)
            keep = row;
    }
    if (!append)
        m_queue->resizeColumnsToContents();
    if (keep >= 0 && !append)
        m_queue->selectRow(keep);
    updateButtons();
    Q_EMIT listed(int(m_rows.size()));
    if (keep >= 0 && !append)
        selectCase(keep);
}

const SuspenseCaseRow *SuspenseView::selected() const
{
    const QModelIndexList rows = m_queue->selectionModel()->selectedRows();
    if (rows.isEmpty() || rows.first().row() >= m_rows.size())
        return nullptr;
    return &m_rows.at(rows.first().row());
}

void SuspenseView::selectCase(int row)
{
    if (row < 0 || row >= m_rows.size())
        return;
    if (!m_queue->selectionModel()->isRowSelected(row, {})) {
        QSignalBlocker quiet(m_queue);
        m_queue->selectRow(row);
    }
    const SuspenseCaseRow item = m_rows[row];
    m_header->setText(
        tr("<b>Case %1</b> · %2 %3 · %4%5 · %6")
            .arg(item.id)
            .arg(item.currency.isEmpty() ? tr("no money held") : caseAmount(item), item.currency,
                 statusWord(item.status),
                 item.owner.isEmpty() ? QString() : tr(", taken by %1").arg(item.owner),
                 item.reason.toHtmlEscaped()) +
        (item.awaitingRun
             ? tr("<br>A statement line its break bore on was withdrawn: it can be settled once "
                  "its day has run again (Reconciliation).")
             : QString()));
    updateButtons();
    const QStringList sources = m_sources;
    m_worker->submit<QList<TimelineEntry>>(
        this, [item, sources](QSqlDatabase db) { return SuspenseQuery::trail(db, item, sources); },
        [this, id = item.id](const Result<QList<TimelineEntry>> &entries) {
            if (!entries) {
                Q_EMIT failed(entries.error().message);
                return;
            }
            showTrail(*entries);
            Q_EMIT caseShown(id);
        });
}

void SuspenseView::showTrail(const QList<TimelineEntry> &entries)
{
    m_trail->clear();
    for (const TimelineEntry &entry : entries) {
        auto *item = new QTreeWidgetItem(m_trail);
        item->setText(0, QLocale().toString(entry.at.toLocalTime(),
                                            QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")));
        item->setText(1, entry.source);
        item->setText(2, entry.summary);
        item->setToolTip(2, entry.summary);
    }
    for (int column = 0; column < 2; ++column)
        m_trail->resizeColumnToContents(column);
}

void SuspenseView::updateButtons()
{
    const SuspenseCaseRow *item = selected();
    const bool open = item && (item->status == QLatin1String("open") ||
                               item->status == QLatin1String("in_review"));
    m_take->setEnabled(m_canWork && open);
    m_note->setEnabled(m_canNote && item);
    m_retry->setEnabled(m_canWork && open && !item->sagaId.isEmpty());
    // The database refuses to settle a case whose day must run again first.
    const bool settleable = open && !item->awaitingRun;
    m_adjust->setEnabled(m_canWork && settleable && item->amount > 0);
    m_writeOff->setEnabled(m_canWork && settleable);
    m_giveBack->setEnabled(m_canWork && item && CaseResolutions::canGiveBack(*item));
    m_chargeOwed->setEnabled(m_canWork && item && CaseResolutions::canChargeOwed(*item));
}

void SuspenseView::takeSelected()
{
    const SuspenseCaseRow *item = selected();
    if (!item)
        return;
    const qint64 id = item->id;
    m_worker->submit<QString>(
        this, [id](QSqlDatabase db) { return CaseDesk(db).take(id); },
        [this, id](const Result<QString> &owner) {
            const QString message =
                owner ? tr("Case %1 is yours (%2).").arg(id).arg(*owner)
                      : tr("Refused by the database: %1").arg(owner.error().message);
            m_result->setText(message);
            Q_EMIT acted(owner.ok(), message);
            refresh();
        });
}

void SuspenseView::addNoteToSelected(const QString &note, const QString &reference)
{
    const SuspenseCaseRow *item = selected();
    if (!item)
        return;
    const qint64 id = item->id;
    m_worker->submit<bool>(
        this,
        [id, note, reference](QSqlDatabase db) -> Result<bool> {
            if (Status added = CaseDesk(db).addNote(id, note, reference); !added)
                return added.error();
            return true;
        },
        [this, id](const Result<bool> &added) {
            const QString message = added ? tr("Note added to case %1.").arg(id)
                                          : tr("Refused: %1").arg(added.error().message);
            m_result->setText(message);
            Q_EMIT acted(added.ok(), message);
            refresh();
        });
}

void SuspenseView::askForNote()
{
    const SuspenseCaseRow *item = selected();
    if (!item)
        return;
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Note on case %1").arg(item->id));
    auto *form = new QFormLayout(&dialog);
    auto *note = new QPlainTextEdit(&dialog);
    note->setAccessibleName(tr("Note"));
    auto *reference = new QLineEdit(&dialog);
    reference->setPlaceholderText(tr("ticket, bank reference, file name…"));
    reference->setAccessibleName(tr("Reference"));
    form->addRow(tr("&Note"), note);
    form->addRow(tr("&Reference"), reference);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() == QDialog::Accepted)
        addNoteToSelected(note->toPlainText(), reference->text());
}

ProposeDialog *SuspenseView::proposeRetryCompensation()
{
    const SuspenseCaseRow *item = selected();
    if (!item || !m_retry->isEnabled())
        return nullptr;
    ProposalRequest request;
    request.kind = QStringLiteral("saga.resume");
    request.targetType = QStringLiteral("saga");
    request.summary = item->sagaId;
    request.targets << ActionTarget{item->sagaId, QString::number(item->sagaVersion)};
    auto *dialog = new ProposeDialog(
        m_worker, request,
        tr("Case %1 closes: its saga compensates again and the %2 %3 held in suspense returns to "
           "the merchant's account for the refund to take.")
            .arg(item->id)
            .arg(HistoryQuery::formatAmount(item->amount, item->exponent), item->currency),
        {QStringLiteral("%1  version %2  (case %3)")
             .arg(item->sagaId)
             .arg(item->sagaVersion)
             .arg(item->id)},
        this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ProposeDialog::proposed, this, &SuspenseView::proposed);
    return dialog;
}

ProposeDialog *SuspenseView::proposeWriteOff()
{
    const SuspenseCaseRow *item = selected();
    if (!item || !m_writeOff->isEnabled())
        return nullptr;
    ProposalRequest request;
    request.kind = QStringLiteral("case.write_off");
    request.targetType = QStringLiteral("suspense_case");
    request.summary = QString::number(item->id);
    request.targets << ActionTarget{QString::number(item->id), item->version};
    const QString amount =
        item->currency.isEmpty()
            ? tr("nothing (the case holds no money)")
            : HistoryQuery::formatAmount(item->amount, item->exponent) + u' ' + item->currency;
    auto *dialog = new ProposeDialog(
        m_worker, request,
        tr("Case %1 is written off: %2 leaves suspense for the write-off account, with the reason "
           "on the record.")
            .arg(item->id)
            .arg(amount),
        {QStringLiteral("case %1  %2  (%3)").arg(item->id).arg(amount, item->reason)}, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ProposeDialog::proposed, this, &SuspenseView::proposed);
    return dialog;
}

ProposeDialog *SuspenseView::proposeGiveBack(CaseResolutions::GiveBackTo to)
{
    const SuspenseCaseRow *item = selected();
    if (!item || !m_giveBack->isEnabled())
        return nullptr;
    const QString amount =
        HistoryQuery::formatAmount(item->amount, item->exponent) + u' ' + item->currency;
    const QString receiver =
        CaseResolutions::bearerAccount(*item, to == CaseResolutions::GiveBackTo::Merchant);
    auto *dialog = new ProposeDialog(
        m_worker, CaseResolutions::giveBack(*item, to),
        tr("Case %1 closes: the %2 the channel gave again for charge %3 leaves suspense for %4, "
           "which bore the take-back, and the charge may be refunded that much again.")
            .arg(item->id)
            .arg(amount, item->chargeId, receiver),
        {QStringLiteral("case %1  %2  (%3)").arg(item->id).arg(amount, item->reason)}, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ProposeDialog::proposed, this, &SuspenseView::proposed);
    return dialog;
}

ProposeDialog *SuspenseView::proposeChargeOwed(CaseResolutions::OwedBy by)
{
    const SuspenseCaseRow *item = selected();
    if (!item || !m_chargeOwed->isEnabled())
        return nullptr;
    const ProposalRequest request = CaseResolutions::chargeOwed(*item, by);
    const QString amount =
        HistoryQuery::formatAmount(item->amount, item->exponent) + u' ' + item->currency;
    auto *dialog = new ProposeDialog(
        m_worker, request,
        tr("Case %1 closes: the %2 the channel owes for charge %3 is charged to %4 and cleared "
           "from suspense. The charge stays refundable only up to what the channel paid.")
            .arg(item->id)
            .arg(amount, item->chargeId,
                 CaseResolutions::bearerAccount(*item, by == CaseResolutions::OwedBy::Merchant)),
        {QStringLiteral("case %1  owed %2  (%3)").arg(item->id).arg(amount, item->reason)}, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ProposeDialog::proposed, this, &SuspenseView::proposed);
    return dialog;
}

AdjustmentDialog *SuspenseView::composeAdjustment()
{
    const SuspenseCaseRow *item = selected();
    if (!item || !m_adjust->isEnabled())
        return nullptr;
    auto *dialog = new AdjustmentDialog(m_worker, *item, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &AdjustmentDialog::proposalOpened, this, [this](ProposeDialog *proposal) {
        connect(proposal, &ProposeDialog::proposed, this, &SuspenseView::proposed);
    });
    return dialog;
}

} // namespace keel
