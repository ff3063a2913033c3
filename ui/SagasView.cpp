#include "ui/SagasView.h"

#include "core/ops/ActionDesk.h"
#include "ui/ListTables.h"
#include "ui/PagedListPane.h"
#include "ui/ProposeDialog.h"
#include "ui/QueryWorker.h"
#include "ui/StatusWords.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIntValidator>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace keel {
namespace {

constexpr int PageSize = 200;

struct ActionSpec {
    SagasView::Action action;
    const char *kind;
    const char *label;
    bool movesMoney;
    QStringList appliesTo; // saga statuses
    const char *change;
};

const QList<ActionSpec> &actionSpecs()
{
    static const QList<ActionSpec> specs{
        {SagasView::Action::RetryNow,
         "saga.retry_now",
         QT_TRANSLATE_NOOP("keel::SagasView", "&Retry now…"),
         false,
         {SagaStatus::Running, SagaStatus::Compensating},
         QT_TRANSLATE_NOOP("keel::SagasView",
                           "The waiting step or compensation is attempted again at once.")},
        {SagasView::Action::ForceCompensation,
         "saga.force_compensation",
         QT_TRANSLATE_NOOP("keel::SagasView", "Force &compensation…"),
         true,
         {SagaStatus::Running},
         QT_TRANSLATE_NOOP("keel::SagasView",
                           "The saga stops going forward and undoes what it did (refunds).")},
        {SagasView::Action::Park,
         "saga.park",
         QT_TRANSLATE_NOOP("keel::SagasView", "&Park…"),
         true,
         {SagaStatus::Running, SagaStatus::Compensating},
         QT_TRANSLATE_NOOP("keel::SagasView", "The saga stops for good; a suspense case opens and "
                                              "the money in question moves to suspense.")},
        {SagasView::Action::Resume,
         "saga.resume",
         QT_TRANSLATE_NOOP("keel::SagasView", "Res&ume…"),
         true,
         {SagaStatus::Parked},
         QT_TRANSLATE_NOOP("keel::SagasView", "The parked saga compensates again; its case "
                                              "closes and the suspense money returns.")},
        {SagasView::Action::SkipStep,
         "saga.skip_step",
         QT_TRANSLATE_NOOP("keel::SagasView", "S&kip step…"),
         true,
         {SagaStatus::Running, SagaStatus::Compensating},
         QT_TRANSLATE_NOOP("keel::SagasView",
                           "The current step (or compensation) counts as done without running.")},
    };
    return specs;
}

QString age(qint64 sinceMs)
{
    const qint64 seconds = (QDateTime::currentMSecsSinceEpoch() - sinceMs) / 1000;
    if (seconds < 120)
        return SagasView::tr("%1 s").arg(seconds);
    if (seconds < 7200)
        return SagasView::tr("%1 min").arg(seconds / 60);
    if (seconds < 172800)
        return SagasView::tr("%1 h").arg(seconds / 3600);
    return SagasView::tr("%1 d").arg(seconds / 86400);
}

QString when(qint64 ms)
{
    return ms == 0 ? QString()
                   : QLocale().toString(QDateTime::fromMSecsSinceEpoch(ms),
                                        QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
}

} // namespace

SagasView::SagasView(QueryWorker *worker, QWidget *parent)
    : QWidget(parent), m_worker(worker), m_definition(new QLineEdit(this)),
      m_status(new QComboBox(this)), m_merchant(new QLineEdit(this)),
      m_businessKey(new QLineEdit(this)), m_age(new QComboBox(this)),
      m_stuckOnly(new QCheckBox(tr("S&tuck only"), this)),
      m_list(makeListTable({tr("Saga"), tr("Definition"), tr("Status"), tr("Stuck"), tr("Step"),
                            tr("Attempts"), tr("Merchant"), tr("Business key"), tr("Age"),
                            tr("Last error")},
                           tr("Sagas"), this)),
      m_more(new QPushButton(tr("Load &more"), this)), m_header(new QLabel(this)),
      m_steps(makeListTable({tr("#"), tr("Step"), tr("Status"), tr("Attempts"),
                             tr("Compensation attempts"), tr("Started"), tr("Finished"),
                             tr("Last error")},
                            tr("Steps"), this)),
      m_timeline(new QTreeWidget(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(filterBar());
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(pagedListPane(m_list, m_more, split));
    split->addWidget(detailPane());
    layout->addWidget(split, 1);
    connect(m_more, &QPushButton::clicked, this, [this] {
        if (m_sagas.isEmpty())
            return;
        SagaFilter next = m_lastFilter;
        next.after = m_sagas.constLast().cursor();
        load(next, true);
    });
    // Several rows selected make a bulk proposal of exactly those sagas.
    m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    connect(m_list, &QTableWidget::itemSelectionChanged, this, [this] {
        const QModelIndexList rows = m_list->selectionModel()->selectedRows();
        if (!rows.isEmpty())
            selectSaga(rows.first().row());
        updateButtons();
    });
    updateButtons();
}

QWidget *SagasView::filterBar()
{
    auto *bar = new QWidget(this);
    auto *row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    m_definition->setPlaceholderText(tr("definition"));
    m_definition->setAccessibleName(tr("Definition"));
    m_status->addItem(tr("any status"), QString());
    for (const QString &status :
         {SagaStatus::Running, SagaStatus::Compensating, SagaStatus::Parked, SagaStatus::Succeeded,
          SagaStatus::Compensated, SagaStatus::Resolved})
        m_status->addItem(statusWord(status), status);
    m_status->setAccessibleName(tr("Status"));
    m_merchant->setPlaceholderText(tr("merchant id"));
    m_merchant->setValidator(new QIntValidator(1, 2000000000, m_merchant));
    m_merchant->setAccessibleName(tr("Merchant"));
    m_businessKey->setPlaceholderText(tr("business key"));
    m_businessKey->setAccessibleName(tr("Business key"));
    const std::pair<QString, int> ages[] = {{tr("any age"), 0},
                                            {tr("older than 5 min"), 300},
                                            {tr("older than 1 h"), 3600},
                                            {tr("older than 1 d"), 86400}};
    for (const auto &[label, seconds] : ages)
        m_age->addItem(label, seconds);
    m_age->setAccessibleName(tr("Age"));
    auto *find = new QPushButton(tr("&Find"), bar);
    find->setDefault(true);
    connect(find, &QPushButton::clicked, this, &SagasView::search);
    for (QLineEdit *field : {m_definition, m_merchant, m_businessKey})
        connect(field, &QLineEdit::returnPressed, this, &SagasView::search);
    for (QWidget *widget : std::initializer_list<QWidget *>{
             m_definition, m_status, m_merchant, m_businessKey, m_age, m_stuckOnly, find})
        row->addWidget(widget);
    return bar;
}

QWidget *SagasView::detailPane()
{
    auto *pane = new QWidget(this);
    auto *layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_header->setWordWrap(true);
    m_header->setAccessibleName(tr("Saga"));
    layout->addWidget(m_header);
    auto *split = new QSplitter(Qt::Horizontal, pane);
    split->addWidget(m_steps);
    m_timeline->setHeaderLabels({tr("Time"), tr("Step"), tr("Event"), tr("Detail")});
    m_timeline->setAccessibleName(tr("Timeline"));
    m_timeline->setRootIsDecorated(false);
    split->addWidget(m_timeline);
    layout->addWidget(split, 1);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    for (const ActionSpec &spec : actionSpecs()) {
        auto *button = new QPushButton(tr(spec.label), pane);
        const Action action = spec.action;
        connect(button, &QPushButton::clicked, this, [this, action] {
            if (ProposeDialog *dialog = propose(action))
                dialog->open();
        });
        buttons->addWidget(button);
        m_actions << button;
    }
    layout->addLayout(buttons);
    return pane;
}

QPushButton *SagasView::actionButton(Action action) const
{
    for (int i = 0; i < actionSpecs().size(); ++i)
        if (actionSpecs()[i].action == action)
            return m_actions.value(i);
    return nullptr;
}

void SagasView::setAccess(bool canPropose, bool canMoveMoney)
{
    m_canPropose = canPropose;
    m_canMoveMoney = canMoveMoney;
    updateButtons();
}

SagaFilter SagasView::currentFilter() const
{
    SagaFilter filter;
    filter.definition = m_definition->text().trimmed();
    filter.status = m_status->currentData().toString();
    filter.merchantId = m_merchant->text().toLongLong();
    filter.businessKey = m_businessKey->text().trimmed();
    filter.olderThanSeconds = m_age->currentData().toInt();
    filter.stuckOnly = m_stuckOnly->isChecked();
    filter.limit = PageSize;
    return filter;
}

void SagasView::search()
{
    m_lastFilter = currentFilter();
    load(m_lastFilter, false);
}

void SagasView::load(const SagaFilter &filter, bool append)
{
    m_more->setEnabled(false);
    m_worker->submitLibpq<QList<SagaSummary>>(
        this, [filter](LibpqConnection &session) { return SagaQuery(session).list(filter); },
        [this, append](const Result<QList<SagaSummary>> &sagas) {
            if (!sagas) {
                Q_EMIT failed(sagas.error().message);
                return;
            }
            showSagas(*sagas, append);
        });
}

void SagasView::showSagas(const QList<SagaSummary> &sagas, bool append)
{
    if (!append)
        m_sagas.clear();
    const int first = int(m_sagas.size());
    m_sagas += sagas;
    QSignalBlocker quiet(m_list);
    m_list->setRowCount(int(m_sagas.size()));
    for (int row = first; row < m_sagas.size(); ++row) {
        const SagaSummary &saga = m_sagas[row];
        const QStringList cells{
            saga.publicId,
            saga.name,
            statusWord(saga.status),
            saga.stuck ? tr("stuck") : QString(),
            QStringLiteral("%1 %2").arg(saga.currentStep).arg(saga.currentStepName),
            QString::number(saga.mostAttempts),
            saga.merchantId ? QString::number(saga.merchantId) : QString(),
            saga.businessKey,
            age(saga.createdAtMs),
            saga.lastError};
        for (int column = 0; column < cells.size(); ++column) {
            auto *item = new QTableWidgetItem(cells[column]);
            if (saga.stuck)
                item->setForeground(QColor(0xc6, 0x28, 0x28));
            m_list->setItem(row, column, item);
        }
    }
    if (!append) // sized by the first page: appending stays proportional to the page
        m_list->resizeColumnsToContents();
    m_more->setEnabled(sagas.size() == PageSize);
    Q_EMIT listed(int(m_sagas.size()));
}

void SagasView::selectSaga(int row)
{
    if (row < 0 || row >= m_sagas.size())
        return;
    if (m_list->selectionModel()->selectedRows().value(0).row() != row ||
        !m_list->selectionModel()->hasSelection()) {
        QSignalBlocker quiet(m_list);
        m_list->selectRow(row);
    }
    const QString publicId = m_sagas[row].publicId;
    m_worker->submitLibpq<std::optional<SagaRecord>>(
        this, [publicId](LibpqConnection &session) { return SagaQuery(session).one(publicId); },
        [this](const Result<std::optional<SagaRecord>> &saga) {
            if (!saga) {
                Q_EMIT failed(saga.error().message);
                return;
            }
            if (*saga)
                showSaga(**saga);
        });
}

void SagasView::showSaga(const SagaRecord &saga)
{
    m_shown = saga;
    m_header->setText(tr("<b>%1</b> · %2 v%3 · %4 · version %5 · compensation rounds %6/%7%8")
                          .arg(saga.publicId, saga.name)
                          .arg(saga.definitionVersion)
                          .arg(statusWord(saga.status))
                          .arg(saga.version)
                          .arg(saga.compensationRounds)
                          .arg(saga.maxCompensationRounds)
                          .arg(saga.leased ? tr(" · a worker holds it now") : QString()));
    m_steps->setRowCount(int(saga.steps.size()));
    for (int row = 0; row < saga.steps.size(); ++row) {
        const StepRecord &step = saga.steps[row];
        const QStringList cells{QString::number(step.index),
                                step.definition.name,
                                statusWord(step.status),
                                QString::number(step.attempts),
                                QString::number(step.compensationAttempts),
                                when(step.startedAtMs),
                                when(step.finishedAtMs),
                                step.lastError};
        for (int column = 0; column < cells.size(); ++column)
            m_steps->setItem(row, column, new QTableWidgetItem(cells[column]));
    }
    m_steps->resizeColumnsToContents();
    m_timeline->clear();
    for (const SagaEvent &event : saga.events) {
        auto *item = new QTreeWidgetItem(m_timeline);
        item->setText(0, when(event.atMs));
        item->setText(1, event.step < 0 ? QString() : QString::number(event.step));
        item->setText(2, event.event);
        item->setText(3, QString::fromUtf8(event.detailJson));
        item->setToolTip(3, QString::fromUtf8(event.detailJson));
    }
    for (int column = 0; column < 3; ++column)
        m_timeline->resizeColumnToContents(column);
    updateButtons();
    Q_EMIT sagaShown(saga.publicId);
}

QList<SagasView::Target> SagasView::targets() const
{
    QList<Target> chosen;
    const QModelIndexList rows = m_list->selectionModel()->selectedRows();
    if (rows.size() > 1) {
        for (const QModelIndex &index : rows)
            if (index.row() < m_sagas.size()) {
                const SagaSummary &saga = m_sagas[index.row()];
                chosen << Target{saga.publicId, saga.name, saga.status, saga.currentStep,
                                 saga.version};
            }
        std::sort(chosen.begin(), chosen.end(),
                  [](const Target &a, const Target &b) { return a.publicId < b.publicId; });
    } else if (m_shown) {
        chosen << Target{m_shown->publicId, m_shown->name, m_shown->status, m_shown->currentStep,
                         m_shown->version};
    }
    return chosen;
}

void SagasView::updateButtons()
{
    const QList<Target> chosen = targets();
    for (int i = 0; i < actionSpecs().size(); ++i) {
        const ActionSpec &spec = actionSpecs()[i];
        const bool roleAllows = m_canPropose && (!spec.movesMoney || m_canMoveMoney);
        const bool applies =
            !chosen.isEmpty() && std::all_of(chosen.begin(), chosen.end(), [&](const Target &t) {
                return spec.appliesTo.contains(t.status);
            });
        m_actions[i]->setEnabled(roleAllows && applies);
        m_actions[i]->setToolTip(!m_canPropose ? tr("Proposing needs keel_operator or keel_sre.")
                                 : !roleAllows
                                     ? tr("This moves money: only keel_operator proposes it.")
                                     : QString());
    }
}

ProposeDialog *SagasView::propose(Action action)
{
    const auto spec = std::find_if(actionSpecs().begin(), actionSpecs().end(),
                                   [action](const ActionSpec &s) { return s.action == action; });
    const int index = int(spec - actionSpecs().begin());
    const QList<Target> chosen = targets();
    if (chosen.isEmpty() || !m_actions.value(index) || !m_actions[index]->isEnabled())
        return nullptr;
    ProposalRequest request;
    request.kind = QString::fromLatin1(spec->kind);
    request.targetType = QStringLiteral("saga");
    request.summary = chosen.size() == 1 ? chosen.first().publicId
                                         : tr("%n saga(s)", nullptr, int(chosen.size()));
    QStringList preview;
    for (const Target &target : chosen) {
        request.targets << ActionTarget{target.publicId, QString::number(target.version)};
        preview << QStringLiteral("%1  %2  %3  step %4  version %5")
                       .arg(target.publicId, target.name, target.status)
                       .arg(target.step)
                       .arg(target.version);
    }
    auto *dialog = new ProposeDialog(m_worker, request, tr(spec->change), preview, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ProposeDialog::proposed, this, &SagasView::proposed);
    return dialog;
}

} // namespace keel
