#include "ui/ApprovalsView.h"

#include "core/ops/ExportLog.h"
#include "ui/ActionReviewPane.h"
#include "ui/QueryWorker.h"
#include "ui/RecordExport.h"
#include "ui/StatusWords.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace keel {
namespace {

QString when(const QDateTime &at)
{
    return at.isValid()
               ? QLocale().toString(at.toLocalTime(), QStringLiteral("yyyy-MM-dd HH:mm:ss t"))
               : QString();
}

QString describe(const ActionExecution &execution)
{
    if (execution.expired)
        return ApprovalsView::tr("The proposal had expired: nothing was done.");
    if (execution.queued)
        return ApprovalsView::tr("Queued: a keel worker carries it out within seconds; its "
                                 "outcome appears in the list.");
    QStringList skipped;
    QStringList said; // what the database says about a target it did apply
    for (const TargetOutcome &target : execution.targets) {
        const QString why = target.message.isEmpty() ? QString() : u' ' + target.message;
        if (target.outcome != QLatin1String("resent") && target.outcome != QLatin1String("done"))
            skipped << QStringLiteral("#%1 %2").arg(target.id, target.outcome) + why;
        else if (!why.isEmpty())
            said << QStringLiteral("#%1:").arg(target.id) + why;
    }
    QString text = ApprovalsView::tr("Executed%1: %2 applied, %3 skipped.")
                       .arg(execution.replayed ? ApprovalsView::tr(" earlier") : QString())
                       .arg(execution.applied)
                       .arg(execution.skipped);
    if (!skipped.isEmpty())
        text += QLatin1Char(' ') + ApprovalsView::tr("Skipped: %1").arg(skipped.join(u", "));
    if (!said.isEmpty())
        text += QLatin1Char(' ') + said.join(u"; ");
    return text;
}

// "account  amount" per posting an action carries (minor units, signed).
QStringList postingLines(const QString &payload)
{
    QStringList lines;
    const QJsonArray postings = QJsonDocument::fromJson(payload.toUtf8())
                                    .object()
                                    .value(QStringLiteral("postings"))
                                    .toArray();
    for (const QJsonValue &value : postings) {
        const QJsonObject posting = value.toObject();
        lines << ApprovalsView::tr("posting: %1  %2 (minor units)")
                     .arg(posting.value(QStringLiteral("account")).toString())
                     .arg(posting.value(QStringLiteral("amount")).toInteger());
    }
    return lines;
}

} // namespace

ApprovalsView::ApprovalsView(QueryWorker *worker, QWidget *parent)
    : QWidget(parent), m_worker(worker), m_queue(new QComboBox(this)),
      m_table(new QTableWidget(0, 10, this)), m_details(new QLabel(this)),
      m_review(new ActionReviewPane(this)), m_result(new QLabel(this)),
      m_approve(new QPushButton(tr("&Approve…"), this)),
      m_reject(new QPushButton(tr("Re&ject…"), this)),
      m_execute(new QPushButton(tr("E&xecute"), this))
{
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    m_queue->addItem(tr("Waiting for me"));
    m_queue->addItem(tr("All proposals"));
    m_queue->setAccessibleName(tr("Queue"));
    auto *refreshButton = new QPushButton(tr("&Refresh"), this);
    auto *exportButton = new QPushButton(tr("E&xport CSV…"), this);
    connect(exportButton, &QPushButton::clicked, this, [this] {
        if (const QString name = RecordExport::askFileName(this, QStringLiteral("approvals.csv"));
            !name.isEmpty())
            exportTo(name);
    });
    top->addWidget(m_queue);
    top->addStretch(1);
    top->addWidget(refreshButton);
    top->addWidget(exportButton);
    layout->addLayout(top);
    m_table->setHorizontalHeaderLabels({tr("#"), tr("Action"), tr("Targets"), tr("Rows"),
                                        tr("Status"), tr("Proposed by"), tr("Proposed"),
                                        tr("Expires"), tr("Decided by"), tr("Reason")});
    m_table->setAccessibleName(tr("Proposals"));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_table, 2);
    m_details->setWordWrap(true);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setAccessibleName(tr("Proposal details"));
    layout->addWidget(m_details);
    layout->addWidget(m_review, 1);
    auto *buttons = new QHBoxLayout;
    m_result->setWordWrap(true);
    // What the database says may quote a statement's references: never markup.
    m_result->setTextFormat(Qt::PlainText);
    m_result->setAccessibleName(tr("Result"));
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    buttons->addWidget(m_result, 1);
    buttons->addWidget(m_approve);
    buttons->addWidget(m_reject);
    buttons->addWidget(m_execute);
    layout->addLayout(buttons);

    connect(m_queue, &QComboBox::currentIndexChanged, this, &ApprovalsView::refresh);
    connect(refreshButton, &QPushButton::clicked, this, &ApprovalsView::refresh);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        updateButtons();
        loadReview();
    });
    connect(m_approve, &QPushButton::clicked, this, &ApprovalsView::askAndApprove);
    connect(m_reject, &QPushButton::clicked, this, &ApprovalsView::askAndReject);
    connect(m_execute, &QPushButton::clicked, this, &ApprovalsView::executeSelected);
    updateButtons();
}

void ApprovalsView::setAccess(bool canApprove, bool canExecute)
{
    m_canApprove = canApprove;
    m_canExecute = canExecute;
    const QString approveWhy = canApprove ? QString() : tr("Approving needs keel_approver.");
    m_approve->setToolTip(approveWhy);
    m_reject->setToolTip(approveWhy);
    m_execute->setToolTip(canExecute ? QString()
                                     : tr("Executing needs the proposer or keel_approver."));
    updateButtons();
}

void ApprovalsView::refresh()
{
    const ActionDesk::Queue which =
        m_queue->currentIndex() == 0 ? ActionDesk::Queue::WaitingForMe : ActionDesk::Queue::All;
    const bool canApprove = m_canApprove;
    // Overdue proposals are marked (and audited) before they are listed, by
    // a login that may act on them; an auditor's list shows them as they are.
    const bool mayExpire = m_canApprove || m_canExecute;
    m_worker->submit<QList<ActionRecord>>(
        this,
        [which, canApprove, mayExpire](QSqlDatabase db) -> Result<QList<ActionRecord>> {
            ActionDesk desk(db);
            if (mayExpire)
                if (Result<int> expired = desk.expireOverdue(); !expired)
                    return expired.error();
            return desk.queue(which, canApprove);
        },
        [this](const Result<QList<ActionRecord>> &records) {
            if (!records) {
                m_result->setText(records.error().message);
                return;
            }
            show(*records);
            Q_EMIT refreshed(int(records->size()));
        });
}

void ApprovalsView::show(const QList<ActionRecord> &records)
{
    const qint64 wasSelected = selected() ? selected()->id : 0;
    m_records = records;
    QSignalBlocker quiet(m_table);
    m_table->setRowCount(int(records.size()));
    for (int row = 0; row < records.size(); ++row) {
        const ActionRecord &record = records[row];
        const QStringList cells{QString::number(record.id),
                                record.kind,
                                record.summary,
                                QString::number(record.targets),
                                statusWord(record.status),
                                record.proposedBy,
                                when(record.proposedAt),
                                when(record.expiresAt),
                                record.decidedBy,
                                record.reason};
        for (int column = 0; column < cells.size(); ++column)
            m_table->setItem(row, column, new QTableWidgetItem(cells[column]));
    }
    m_table->resizeColumnsToContents();
    if (wasSelected == 0 || !select(wasSelected))
        m_table->clearSelection();
    updateButtons();
}

bool ApprovalsView::select(qint64 actionId)
{
    for (int row = 0; row < m_records.size(); ++row)
        if (m_records[row].id == actionId) {
            m_table->selectRow(row);
            return true;
        }
    return false;
}

const ActionRecord *ApprovalsView::selected() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty() || rows.first().row() >= m_records.size())
        return nullptr;
    return &m_records.at(rows.first().row());
}

void ApprovalsView::updateButtons()
{
    const ActionRecord *record = selected();
    const bool open = record && record->status == QLatin1String("proposed");
    // The proposer's own proposal stays approvable here: the database is the
    // one that refuses it, and says so.
    // Approving waits until what it approves is on the screen.
    m_approve->setEnabled(m_canApprove && open && m_shown && m_shown->record.id == record->id);
    m_reject->setEnabled(m_canApprove && open);
    m_execute->setEnabled(m_canExecute && record && record->status == QLatin1String("approved"));
    QString details = record
                          ? tr("#%1 %2 on %3 row(s) · targets hash %4 · %5")
                                .arg(record->id)
                                .arg(record->kind)
                                .arg(record->targets)
                                .arg(record->targetsHash.left(16),
                                     record->outcome.isEmpty() ? record->reason : record->outcome)
                          : QString();
    // An adjustment's approver sees the postings the proposer saw.
    if (record)
        for (const QString &line : postingLines(record->payload))
            details += u'\n' + line;
    m_details->setText(details);
}

void ApprovalsView::exportTo(const QString &fileName)
{
    RecordExport::toFile(
        m_worker, this, fileName, QStringLiteral("approvals"), QStringLiteral("all"),
        [](QSqlDatabase db, QIODevice &out) { return ExportLog::approvalsCsv(db, out); },
        [this](bool ok, const QString &message) {
            m_result->setText(message);
            Q_EMIT exported(ok, message);
        });
}

void ApprovalsView::loadReview()
{
    const ActionRecord *record = selected();
    m_shown.reset();
    if (!record) {
        m_review->clear();
        return;
    }
    const qint64 id = record->id;
    m_worker->submit<ActionReview>(
        this, [id](QSqlDatabase db) { return ActionReviews::load(db, id); },
        [this, id](const Result<ActionReview> &review) {
            const ActionRecord *now = selected();
            if (!now || now->id != id)
                return; // the selection moved on meanwhile
            if (!review) {
                m_result->setText(review.error().message);
                return;
            }
            m_shown = *review;
            m_review->show(*review);
            updateButtons();
            Q_EMIT reviewed(id);
        });
}

void ApprovalsView::act(std::function<Status(ActionDesk &)> step, const QString &done)
{
    m_approve->setEnabled(false);
    m_reject->setEnabled(false);
    m_execute->setEnabled(false);
    m_worker->submit<QString>(
        this,
        [step = std::move(step), done](QSqlDatabase db) -> Result<QString> {
            ActionDesk desk(db);
            if (Status status = step(desk); !status)
                return status.error();
            return done;
        },
        [this](const Result<QString> &outcome) {
            const QString message =
                outcome ? *outcome : tr("Refused by the database: %1").arg(outcome.error().message);
            m_result->setText(message);
            Q_EMIT acted(outcome.ok(), message);
            refresh();
        });
}

void ApprovalsView::approveSelected(const QString &comment)
{
    const ActionRecord *record = selected();
    if (!record || !m_shown || m_shown->record.id != record->id)
        return;
    act([id = record->id, seen = m_shown->record.contentHash,
         comment](ActionDesk &desk) { return desk.approve(id, seen, comment); },
        tr("Proposal #%1 approved.").arg(record->id));
}

void ApprovalsView::rejectSelected(const QString &comment)
{
    if (const ActionRecord *record = selected())
        act([id = record->id, comment](ActionDesk &desk) { return desk.reject(id, comment); },
            tr("Proposal #%1 rejected.").arg(record->id));
}

void ApprovalsView::executeSelected()
{
    const ActionRecord *record = selected();
    if (!record)
        return;
    const qint64 id = record->id;
    m_execute->setEnabled(false);
    m_worker->submit<ActionExecution>(
        this, [id](QSqlDatabase db) { return ActionDesk(db).execute(id); },
        [this](const Result<ActionExecution> &execution) {
            const QString message =
                execution ? describe(*execution)
                          : tr("Refused by the database: %1").arg(execution.error().message);
            m_result->setText(message);
            Q_EMIT acted(execution.ok() && !execution->expired, message);
            refresh();
        });
}

void ApprovalsView::askAndApprove()
{
    const ActionRecord *record = selected();
    if (!record)
        return;
    bool ok = false;
    const QString comment = QInputDialog::getText(
        this, tr("Approve #%1").arg(record->id),
        tr("Approve %1 on %2 row(s) proposed by %3?\nReason given: %4\n\nComment (optional):")
            .arg(record->kind)
            .arg(record->targets)
            .arg(record->proposedBy, record->reason),
        QLineEdit::Normal, QString(), &ok);
    if (ok)
        approveSelected(comment);
}

void ApprovalsView::askAndReject()
{
    const ActionRecord *record = selected();
    if (!record)
        return;
    bool ok = false;
    const QString comment = QInputDialog::getText(this, tr("Reject #%1").arg(record->id),
                                                  tr("Why is it rejected? (at least 5 characters)"),
                                                  QLineEdit::Normal, QString(), &ok);
    if (ok)
        rejectSelected(comment);
}

} // namespace keel
