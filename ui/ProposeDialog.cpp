#include "ui/ProposeDialog.h"

#include "ui/QueryWorker.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace keel {
namespace {

constexpr int PreviewLines = 200;

} // namespace

ProposeDialog::ProposeDialog(QueryWorker *worker, ProposalRequest request, const QString &change,
                             const QStringList &preview, QWidget *parent)
    : QDialog(parent), m_worker(worker), m_request(std::move(request)),
      m_reason(new QLineEdit(this)), m_confirm(new QLineEdit(this)), m_result(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    if (m_request.idempotencyKey.isEmpty())
        m_request.idempotencyKey = ActionDesk::newIdempotencyKey();
    const int count = int(m_request.targets.size());
    setWindowTitle(tr("Propose: %1").arg(m_request.kind));
    auto *layout = new QVBoxLayout(this);
    auto *what = new QLabel(
        tr("<b>%n row(s)</b> will be affected. %1", nullptr, count).arg(change.toHtmlEscaped()),
        this);
    what->setWordWrap(true);
    layout->addWidget(what);
    auto *list = new QPlainTextEdit(this);
    list->setReadOnly(true);
    list->setAccessibleName(tr("Targets"));
    QStringList shown = preview.mid(0, PreviewLines);
    if (preview.size() > PreviewLines)
        shown << tr("… and %1 more").arg(preview.size() - PreviewLines);
    list->setPlainText(shown.join(u'\n'));
    list->setMaximumHeight(160);
    layout->addWidget(list);
    auto *note = new QLabel(tr("Only these rows, at the versions shown, will be touched; a row "
                               "that changes before execution is skipped and reported. A second "
                               "person with keel_approver must approve."),
                            this);
    note->setWordWrap(true);
    layout->addWidget(note);
    auto *form = new QFormLayout;
    m_reason->setPlaceholderText(tr("why (at least 5 characters), e.g. the incident number"));
    m_reason->setAccessibleName(tr("Reason"));
    m_confirm->setPlaceholderText(QString::number(count));
    m_confirm->setAccessibleName(tr("Confirm the count"));
    form->addRow(tr("&Reason"), m_reason);
    form->addRow(tr("Type &%1 to confirm").arg(count), m_confirm);
    layout->addLayout(form);
    m_result->setWordWrap(true);
    m_result->setAccessibleName(tr("Result"));
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_result);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("&Propose"));
    layout->addWidget(m_buttons);
    connect(m_reason, &QLineEdit::textChanged, this, &ProposeDialog::updateButtons);
    connect(m_confirm, &QLineEdit::textChanged, this, &ProposeDialog::updateButtons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &ProposeDialog::submit);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    updateButtons();
}

bool ProposeDialog::complete() const
{
    return m_reason->text().trimmed().size() >= 5 &&
           m_confirm->text().trimmed() == QString::number(m_request.targets.size());
}

void ProposeDialog::updateButtons()
{
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(complete() && !m_busy);
}

void ProposeDialog::submit()
{
    if (!complete() || m_busy)
        return;
    m_busy = true;
    updateButtons();
    m_request.reason = m_reason->text().trimmed();
    const ProposalRequest request = m_request;
    m_worker->submit<ActionRecord>(
        this, [request](QSqlDatabase db) { return ActionDesk(db).propose(request); },
        [this](const Result<ActionRecord> &record) {
            m_busy = false;
            updateButtons();
            if (!record) {
                // The server's own words: it is the one that refused.
                m_result->setText(tr("Refused: %1").arg(record.error().message));
                Q_EMIT refused(record.error().message);
                return;
            }
            m_result->setText(tr("Proposal #%1 waits for approval (targets hash %2…).")
                                  .arg(record->id)
                                  .arg(record->targetsHash.left(12)));
            Q_EMIT proposed(*record);
            accept();
        });
}

} // namespace keel
