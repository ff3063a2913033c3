#include "ui/AdjustmentDialog.h"

#include "core/money/Currency.h"
#include "core/ops/ActionDesk.h"
#include "ui/ProposeDialog.h"
#include "ui/QueryWorker.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace keel {
namespace {

struct Loaded {
    QStringList accounts;
    qint64 suspenseBalance = 0;
};

Currency currencyOf(const SuspenseCaseRow &row)
{
    return {row.currency, row.exponent, 0};
}

// What the case leaves in suspense, in its credit terms: money the channel
// owes is a debit (migration 0050).
qint64 inSuspense(const SuspenseCaseRow &row)
{
    return row.owed ? -row.amount : row.amount;
}

} // namespace

AdjustmentDialog::AdjustmentDialog(QueryWorker *worker, SuspenseCaseRow suspenseCase,
                                   QWidget *parent)
    : QDialog(parent), m_worker(worker), m_case(std::move(suspenseCase)),
      m_postings(new QTableWidget(0, 2, this)), m_sum(new QLabel(this)), m_after(new QLabel(this)),
      m_propose(new QPushButton(tr("&Continue to proposal…"), this))
{
    setWindowTitle(tr("Ledger adjustment for case %1").arg(m_case.id));
    auto *layout = new QVBoxLayout(this);
    const QString amount = formatMajorUnits(m_case.amount, currencyOf(m_case));
    auto *intro = new QLabel(
        m_case.owed ? tr("The channel owes %1 %2, which keel clears from suspense (the first "
                         "line). Enter the postings that bear it, in %2: each is charged a "
                         "positive amount. They must bring the sum to zero.")
                          .arg(amount, m_case.currency)
                    : tr("keel takes %1 %2 out of suspense (the first line). Enter the postings "
                         "that receive it, in %2: credits are negative. They must bring the sum "
                         "to zero.")
                          .arg(amount, m_case.currency),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_postings->setHorizontalHeaderLabels({tr("Account"), tr("Amount (%1)").arg(m_case.currency)});
    m_postings->setAccessibleName(tr("Postings"));
    m_postings->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_postings->verticalHeader()->hide();
    m_postings->setRowCount(1);
    auto *suspenseLeg = new QTableWidgetItem(QStringLiteral("suspense:%1").arg(m_case.currency));
    suspenseLeg->setFlags(Qt::ItemIsEnabled);
    m_postings->setItem(0, 0, suspenseLeg);
    auto *suspenseAmount = new QTableWidgetItem(m_case.owed ? QString(u'-' + amount) : amount);
    suspenseAmount->setFlags(Qt::ItemIsEnabled);
    m_postings->setItem(0, 1, suspenseAmount);
    layout->addWidget(m_postings, 1);
    auto *row = new QHBoxLayout;
    auto *add = new QPushButton(tr("&Add line"), this);
    connect(add, &QPushButton::clicked, this, [this] { addLine(); });
    row->addWidget(add);
    row->addStretch(1);
    layout->addLayout(row);
    m_sum->setAccessibleName(tr("Sum"));
    m_after->setAccessibleName(tr("Suspense balance after"));
    layout->addWidget(m_sum);
    layout->addWidget(m_after);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    buttons->addButton(m_propose, QDialogButtonBox::AcceptRole);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_propose, &QPushButton::clicked, this, [this] {
        if (ProposeDialog *dialog = continueToProposal()) {
            dialog->open();
            accept();
        }
    });
    layout->addWidget(buttons);
    recompute();
    const QString currency = m_case.currency;
    const qint64 caseId = m_case.id;
    m_worker->submit<Loaded>(
        this,
        [currency, caseId](QSqlDatabase db) -> Result<Loaded> {
            Result<QStringList> accounts = SuspenseQuery::adjustableAccounts(db, caseId);
            if (!accounts)
                return accounts.error();
            Result<qint64> balance = SuspenseQuery::suspenseBalance(db, currency);
            if (!balance)
                return balance.error();
            return Loaded{*accounts, *balance};
        },
        [this](const Result<Loaded> &loaded) {
            if (loaded) {
                m_accounts = loaded->accounts;
                m_suspenseBalance = loaded->suspenseBalance;
                for (int line = 1; line < m_postings->rowCount(); ++line)
                    if (auto *box = qobject_cast<QComboBox *>(m_postings->cellWidget(line, 0)))
                        box->addItems(m_accounts);
            } else {
                m_sum->setText(loaded.error().message);
            }
            recompute();
            Q_EMIT ready();
        });
}

void AdjustmentDialog::addLine(const QString &account, const QString &amount)
{
    const int line = m_postings->rowCount();
    m_postings->setRowCount(line + 1);
    auto *box = new QComboBox(m_postings);
    box->setEditable(true);
    box->addItems(m_accounts);
    box->setCurrentText(account);
    box->setAccessibleName(tr("Account of line %1").arg(line));
    auto *edit = new QLineEdit(amount, m_postings);
    edit->setAccessibleName(tr("Amount of line %1").arg(line));
    const QString whole = formatMajorUnits(m_case.amount, currencyOf(m_case));
    edit->setPlaceholderText(m_case.owed ? whole : QString(u'-' + whole));
    m_postings->setCellWidget(line, 0, box);
    m_postings->setCellWidget(line, 1, edit);
    connect(box, &QComboBox::currentTextChanged, this, &AdjustmentDialog::recompute);
    connect(edit, &QLineEdit::textChanged, this, &AdjustmentDialog::recompute);
    recompute();
}

Result<QList<std::pair<QString, qint64>>> AdjustmentDialog::counterPostings() const
{
    QList<std::pair<QString, qint64>> postings;
    for (int line = 1; line < m_postings->rowCount(); ++line) {
        const auto *box = qobject_cast<QComboBox *>(m_postings->cellWidget(line, 0));
        const auto *edit = qobject_cast<QLineEdit *>(m_postings->cellWidget(line, 1));
        if (!box || !edit)
            continue;
        const QString account = box->currentText().trimmed();
        QString text = edit->text().trimmed();
        if (account.isEmpty() && text.isEmpty())
            continue; // a blank line is no posting
        if (account.isEmpty())
            return makeError(ErrorKind::Usage, tr("line %1: choose an account").arg(line));
        const bool credit = text.startsWith(u'-');
        if (credit)
            text.remove(0, 1);
        Result<qint64> minor =
            parseMajorUnits(text, currencyOf(m_case), tr("line %1 amount").arg(line));
        if (!minor)
            return minor.error();
        postings.append({account, credit ? -*minor : *minor});
    }
    return postings;
}

void AdjustmentDialog::recompute()
{
    const Result<QList<std::pair<QString, qint64>>> postings = counterPostings();
    qint64 sum = inSuspense(m_case);
    if (postings)
        for (const auto &[account, amount] : *postings)
            sum += amount;
    const Currency currency = currencyOf(m_case);
    const auto major = [&](qint64 minor) {
        return minor < 0 ? u'-' + formatMajorUnits(-minor, currency)
                         : formatMajorUnits(minor, currency);
    };
    // The database refuses a posting that is charged instead of paid from
    // a case that holds money (migration 0029), and one paid from a case the
    // channel owes (0050); say so before a reason is written.
    const bool owed = m_case.owed;
    const bool wrongWay =
        postings && std::any_of(postings->cbegin(), postings->cend(), [owed](const auto &posting) {
            return owed ? posting.second < 0 : posting.second > 0;
        });
    const bool balanced = postings && !postings->isEmpty() && sum == 0 && !wrongWay;
    if (!postings)
        m_sum->setText(postings.error().message);
    else if (wrongWay)
        m_sum->setText(owed ? tr("Each posting bears part of what the channel owes: enter it as "
                                 "a positive amount.")
                            : tr("Each posting receives part of what the case holds: enter it "
                                 "as a negative amount."));
    else
        m_sum->setText(balanced
                           ? tr("Sum: %1 %2 — balanced").arg(major(sum), m_case.currency)
                           : tr("Sum: %1 %2 — does not balance").arg(major(sum), m_case.currency));
    m_sum->setStyleSheet(balanced ? QString()
                                  : QStringLiteral("color: #c62828; font-weight: bold"));
    m_after->setText(tr("Suspense %1 after: %2 (now %3)")
                         .arg(m_case.currency, major(m_suspenseBalance - inSuspense(m_case)),
                              major(m_suspenseBalance)));
    m_propose->setEnabled(balanced);
}

ProposeDialog *AdjustmentDialog::continueToProposal()
{
    const Result<QList<std::pair<QString, qint64>>> postings = counterPostings();
    if (!postings || !m_propose->isEnabled())
        return nullptr;
    const Currency currency = currencyOf(m_case);
    QJsonArray list;
    QStringList preview{QStringLiteral("suspense:%1  %2%3")
                            .arg(m_case.currency, m_case.owed ? QStringLiteral("-") : QString(),
                                 formatMajorUnits(m_case.amount, currency))};
    for (const auto &[account, amount] : *postings) {
        list.append(
            QJsonObject{{QStringLiteral("account"), account}, {QStringLiteral("amount"), amount}});
        preview << QStringLiteral("%1  %2%3")
                       .arg(account, amount < 0 ? QStringLiteral("-") : QString(),
                            formatMajorUnits(amount < 0 ? -amount : amount, currency));
    }
    preview << tr("sum 0 %1 · suspense %1 after: %2")
                   .arg(m_case.currency,
                        (m_suspenseBalance - inSuspense(m_case) < 0 ? QStringLiteral("-")
                                                                    : QString()) +
                            formatMajorUnits(qAbs(m_suspenseBalance - inSuspense(m_case)),
                                             currency));
    ProposalRequest request;
    request.kind = QStringLiteral("case.adjust");
    request.targetType = QStringLiteral("suspense_case");
    request.summary = QString::number(m_case.id);
    request.targets << ActionTarget{QString::number(m_case.id), m_case.version};
    request.payload = QJsonObject{{QStringLiteral("postings"), list}};
    auto *dialog = new ProposeDialog(
        m_worker, request,
        tr("Case %1 is resolved by these postings, which sum to zero.").arg(m_case.id), preview,
        parentWidget());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    Q_EMIT proposalOpened(dialog);
    return dialog;
}

} // namespace keel
