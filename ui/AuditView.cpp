#include "ui/AuditView.h"

#include "core/ops/AuditChain.h"
#include "core/read/AuditQuery.h"
#include "ui/AuditModel.h"
#include "ui/QueryWorker.h"
#include "ui/RecordExport.h"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QTableView>
#include <QVBoxLayout>

namespace keel {
namespace {

QString describe(const AuditChainBreak &broken)
{
    switch (broken.kind) {
    case AuditBreakKind::Missing:
        return AuditView::tr("seq %1 is missing: a link was deleted.").arg(broken.seq);
    case AuditBreakKind::Relinked:
        return AuditView::tr("seq %1 does not point at the hash of the link before it: links "
                             "before it were replaced.")
            .arg(broken.seq);
    case AuditBreakKind::Edited:
        return AuditView::tr("seq %1 does not match its hash: the row was edited.").arg(broken.seq);
    case AuditBreakKind::CheckpointMismatch:
        return AuditView::tr("seq %1 holds another hash than the checkpoint: the chain up to it "
                             "was rewritten.")
            .arg(broken.seq);
    case AuditBreakKind::CheckpointMissing:
        return AuditView::tr("the checkpoint's seq %1 is gone: the chain was cut back.")
            .arg(broken.seq);
    }
    return {};
}

} // namespace

AuditView::AuditView(QueryWorker *worker, QWidget *parent)
    : QWidget(parent), m_worker(worker),
      m_model(new AuditModel(AuditModel::pagesFrom(worker), this)), m_actor(new QLineEdit(this)),
      m_action(new QComboBox(this)), m_object(new QLineEdit(this)), m_table(new QTableView(this)),
      m_verify(new QPushButton(tr("&Verify chain"), this)), m_verdict(new QLabel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(filterBar());
    m_table->setModel(m_model);
    m_table->setAccessibleName(tr("Audit trail"));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->horizontalHeader()->setSectionResizeMode(AuditModel::Detail, QHeaderView::Stretch);
    m_table->setWordWrap(false);
    layout->addWidget(m_table, 1);
    layout->addWidget(verifyBar());
    connect(m_model, &AuditModel::loadFailed, this, &AuditView::failed);
    connect(m_model, &AuditModel::pageLoaded, this, [this] { m_table->resizeColumnsToContents(); });
}

QWidget *AuditView::filterBar()
{
    auto *bar = new QWidget(this);
    auto *row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    m_actor->setPlaceholderText(tr("login"));
    m_actor->setAccessibleName(tr("Who"));
    m_action->setEditable(true);
    m_action->setAccessibleName(tr("Action"));
    m_action->addItems({QString(), QStringLiteral("propose"), QStringLiteral("approve"),
                        QStringLiteral("reject"), QStringLiteral("expire"),
                        QStringLiteral("execute")});
    m_object->setPlaceholderText(tr("type or type:id"));
    m_object->setAccessibleName(tr("Object"));
    auto *find = new QPushButton(tr("&Find"), bar);
    find->setDefault(true);
    for (QLineEdit *field : {m_actor, m_object})
        connect(field, &QLineEdit::returnPressed, this, &AuditView::search);
    connect(find, &QPushButton::clicked, this, &AuditView::search);
    auto *exportButton = new QPushButton(tr("E&xport CSV…"), bar);
    connect(exportButton, &QPushButton::clicked, this, [this] {
        if (const QString name = RecordExport::askFileName(this, QStringLiteral("audit-trail.csv"));
            !name.isEmpty())
            exportTo(name);
    });
    auto *who = new QLabel(tr("W&ho"), bar);
    who->setBuddy(m_actor);
    auto *action = new QLabel(tr("&Action"), bar);
    action->setBuddy(m_action);
    auto *object = new QLabel(tr("O&bject"), bar);
    object->setBuddy(m_object);
    row->addWidget(who);
    row->addWidget(m_actor);
    row->addWidget(action);
    row->addWidget(m_action);
    row->addWidget(object);
    row->addWidget(m_object);
    row->addWidget(find);
    row->addWidget(exportButton);
    return bar;
}

QWidget *AuditView::verifyBar()
{
    auto *bar = new QWidget(this);
    auto *row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    auto *againstFile = new QPushButton(tr("Verify against &checkpoint…"), bar);
    auto *save = new QPushButton(tr("&Save checkpoint…"), bar);
    save->setToolTip(tr("Writes the chain's head (seq and hash) to a file to keep outside the "
                        "database; verifying against it later proves nothing up to it changed."));
    m_verdict->setAccessibleName(tr("Verification result"));
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(m_verify, &QPushButton::clicked, this, &AuditView::verify);
    connect(againstFile, &QPushButton::clicked, this, &AuditView::verifyWithCheckpointFile);
    connect(save, &QPushButton::clicked, this, &AuditView::saveCheckpointInteractively);
    row->addWidget(m_verify);
    row->addWidget(againstFile);
    row->addWidget(save);
    row->addWidget(m_verdict, 1);
    return bar;
}

void AuditView::search()
{
    m_model->search(
        {m_actor->text().trimmed(), m_action->currentText().trimmed(), m_object->text().trimmed()});
}

void AuditView::exportTo(const QString &fileName)
{
    const AuditFilter filter{m_actor->text().trimmed(), m_action->currentText().trimmed(),
                             m_object->text().trimmed()};
    const QString text = QStringLiteral("who=%1; action=%2; object=%3")
                             .arg(filter.actor, filter.action, filter.object);
    RecordExport::toFile(
        m_worker, this, fileName, QStringLiteral("audit_log"), text,
        [filter, text](QSqlDatabase db, QIODevice &out) {
            return AuditQuery::exportCsv(db, filter, text, out);
        },
        [this](bool ok, const QString &message) {
            m_verdict->setText(message);
            Q_EMIT exported(ok, message);
        });
}

void AuditView::verify()
{
    verifyAgainst(std::nullopt);
}

void AuditView::verifyAgainst(const std::optional<AuditCheckpoint> &checkpoint)
{
    m_verify->setEnabled(false);
    m_verdict->setText(tr("Verifying…"));
    m_worker->submit<AuditChainReport>(
        this, [checkpoint](QSqlDatabase db) { return AuditChain(db).verify(checkpoint); },
        [this, against = checkpoint.has_value()](const Result<AuditChainReport> &report) {
            m_verify->setEnabled(true);
            if (!report) {
                m_verdict->setText(tr("Could not verify: %1").arg(report.error().message));
                Q_EMIT failed(report.error().message);
                return;
            }
            showReport(*report, against);
        });
}

void AuditView::showReport(const AuditChainReport &report, bool againstCheckpoint)
{
    if (report.intact()) {
        m_model->setBrokenSeq(0);
        m_verdict->setStyleSheet(QString());
        m_verdict->setText((againstCheckpoint
                                ? tr("Chain intact and holds the checkpoint: %1 links, head seq "
                                     "%2.")
                                : tr("Chain intact: %1 links, head seq %2."))
                               .arg(report.links)
                               .arg(report.head.seq));
        Q_EMIT verified(true, 0);
        return;
    }
    const qint64 seq = report.firstBreak->seq;
    m_model->setBrokenSeq(seq);
    m_verdict->setStyleSheet(QStringLiteral("color: #c62828; font-weight: bold"));
    m_verdict->setText(tr("Chain broken: %1").arg(describe(*report.firstBreak)));
    if (const int row = m_model->rowOf(seq); row >= 0) {
        m_table->selectRow(row);
        m_table->scrollTo(m_model->index(row, 0));
    }
    Q_EMIT verified(false, seq);
}

void AuditView::verifyWithCheckpointFile()
{
    const QString fileName = QFileDialog::getOpenFileName(this, tr("Checkpoint to verify against"));
    if (fileName.isEmpty())
        return;
    QFile file(fileName);
    if (!file.open(QIODevice::ReadOnly)) {
        m_verdict->setText(tr("Cannot read %1: %2").arg(fileName, file.errorString()));
        return;
    }
    Result<AuditCheckpoint> checkpoint = AuditCheckpoint::parse(file.read(4096));
    if (!checkpoint) {
        m_verdict->setText(tr("%1: %2").arg(fileName, checkpoint.error().message));
        return;
    }
    verifyAgainst(*checkpoint);
}

void AuditView::saveCheckpointInteractively()
{
    const QString fileName = QFileDialog::getSaveFileName(
        this, tr("Save checkpoint"), QStringLiteral("keel-audit-checkpoint.txt"));
    if (!fileName.isEmpty())
        saveCheckpointTo(fileName);
}

void AuditView::saveCheckpointTo(const QString &fileName)
{
    m_worker->submit<AuditCheckpoint>(
        this, [](QSqlDatabase db) { return AuditChain(db).head(); },
        [this, fileName](const Result<AuditCheckpoint> &head) {
            QString error;
            if (!head) {
                error = head.error().message;
            } else {
                QSaveFile file(fileName);
                const QByteArray line = head->toText().toUtf8() + '\n';
                if (!file.open(QIODevice::WriteOnly) || file.write(line) != line.size() ||
                    !file.commit())
                    error = file.errorString();
                else
                    m_verdict->setText(tr("Checkpoint saved: seq %1.").arg(head->seq));
            }
            if (!error.isEmpty())
                m_verdict->setText(tr("Could not save the checkpoint: %1").arg(error));
            Q_EMIT checkpointSaved(error);
        });
}

} // namespace keel
