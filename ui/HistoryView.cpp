#include "ui/HistoryView.h"

#include "ui/FilterFields.h"
#include "ui/HistoryModel.h"
#include "ui/QueryWorker.h"

#include <QComboBox>
#include <QDateTimeEdit>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPointer>
#include <QProgressDialog>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace keel {
namespace {

enum CreatedChoice { AnyTime, LastHour, LastDay, LastWeek, LastMonth, Between };

} // namespace

HistoryView::HistoryView(QueryWorker *worker, QWidget *parent)
    : QWidget(parent), m_worker(worker),
      m_model(new HistoryModel(HistoryModel::pagesFrom(worker), this)), m_text(new QLineEdit(this)),
      m_merchant(new QLineEdit(this)), m_minAmount(new QLineEdit(this)),
      m_maxAmount(new QLineEdit(this)), m_state(new QComboBox(this)),
      m_created(new QComboBox(this)), m_from(new QDateTimeEdit(this)),
      m_to(new QDateTimeEdit(this)), m_table(new QTableView(this)),
      m_timeline(new QTreeWidget(this)), m_status(new QLabel(this)),
      m_timelineNote(new QLabel(this)), m_export(new QPushButton(tr("Export CSV…"), this)),
      m_timelineSources(HistoryQuery::timelineSources())
{
    setUpFilters();
    setUpResults();
    auto *find = new QPushButton(tr("&Search"), this);
    find->setDefault(true);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(filterLines(find));
    layout->addWidget(resultsAndTrail(), 1);
    layout->addWidget(m_status);

    connect(find, &QPushButton::clicked, this, &HistoryView::search);
    connect(m_created, &QComboBox::currentIndexChanged, this, &HistoryView::showCreatedRange);
    connect(m_text, &QLineEdit::returnPressed, this, &HistoryView::search);
    connect(m_export, &QPushButton::clicked, this, &HistoryView::exportInteractively);
    connect(m_model, &HistoryModel::pageLoaded, this, &HistoryView::handlePageLoaded);
    connect(m_model, &HistoryModel::loadFailed, this, &HistoryView::failed);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    showTimeline(m_model->rowAt(current.row()).publicId);
            });
}

void HistoryView::setUpFilters()
{
    m_text->setPlaceholderText(tr("charge id (ch_…) or order number"));
    m_text->setAccessibleName(tr("Charge id or order number"));
    m_merchant->setPlaceholderText(tr("merchant id"));
    m_minAmount->setPlaceholderText(tr("min, minor units"));
    m_maxAmount->setPlaceholderText(tr("max, minor units"));
    m_state->addItem(tr("any state"), QString());
    for (const char *state : {"Authorizing", "Authorized", "Capturing", "Captured", "Refunding",
                              "Refunded", "Failed", "Reversed", "Canceled"})
        m_state->addItem(QLatin1String(state), QLatin1String(state));
    m_state->setAccessibleName(tr("Payment state"));
    m_created->addItem(tr("any time"), AnyTime);
    m_created->addItem(tr("last hour"), LastHour);
    m_created->addItem(tr("last 24 hours"), LastDay);
    m_created->addItem(tr("last 7 days"), LastWeek);
    m_created->addItem(tr("last 30 days"), LastMonth);
    m_created->addItem(tr("between…"), Between);
    m_created->setAccessibleName(tr("Created"));
    const QDateTime now = QDateTime::currentDateTime();
    for (QDateTimeEdit *edge : {m_from, m_to}) {
        edge->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm"));
        edge->setCalendarPopup(true);
        edge->setVisible(false);
    }
    m_from->setDateTime(now.addDays(-1));
    m_to->setDateTime(now.addSecs(3600));
    m_from->setAccessibleName(tr("Created from"));
    m_to->setAccessibleName(tr("Created before"));
    m_timelineNote->setVisible(false);
    m_timelineNote->setWordWrap(true);
}

// What to look for on the first line, how to narrow it on the second.
QLayout *HistoryView::filterLines(QPushButton *find)
{
    auto *searchLine = new QHBoxLayout;
    searchLine->addWidget(m_text, 1);
    searchLine->addWidget(find);
    searchLine->addWidget(m_export);
    auto *narrowLine = new QHBoxLayout;
    narrowLine->addWidget(m_merchant, 1);
    narrowLine->addWidget(m_minAmount, 1);
    narrowLine->addWidget(m_maxAmount, 1);
    narrowLine->addWidget(m_state, 1);
    narrowLine->addWidget(m_created, 1);
    narrowLine->addWidget(m_from, 1);
    narrowLine->addWidget(m_to, 1);
    auto *filters = new QVBoxLayout;
    filters->addLayout(searchLine);
    filters->addLayout(narrowLine);
    return filters;
}

void HistoryView::setUpResults()
{
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setWordWrap(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    m_table->setAccessibleName(tr("Payments"));
    m_timeline->setHeaderLabels({tr("When"), tr("Where"), tr("What")});
    m_timeline->setRootIsDecorated(false);
    m_timeline->setAccessibleName(tr("Timeline of the selected payment"));
}

QWidget *HistoryView::resultsAndTrail()
{
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    auto *trail = new QWidget(this);
    auto *trailLayout = new QVBoxLayout(trail);
    trailLayout->setContentsMargins(0, 0, 0, 0);
    trailLayout->addWidget(m_timeline, 1);
    trailLayout->addWidget(m_timelineNote);
    split->addWidget(trail);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    return split;
}

void HistoryView::handlePageLoaded()
{
    if (m_model->rowCount() <= HistoryModel::PageSize) {
        m_table->resizeColumnsToContents(); // sized once per search, to the first page
        for (int column = 0; column < HistoryModel::ColumnCount; ++column)
            m_table->setColumnWidth(column, std::min(m_table->columnWidth(column), 220));
    }
    m_status->setText(tr("%n payment(s) loaded", nullptr, m_model->rowCount()) +
                      (m_model->canFetchMore({}) ? tr("; scroll for more") : QString()));
}

Result<HistoryFilter> HistoryView::currentFilter() const
{
    HistoryFilter filter;
    const QString text = m_text->text().trimmed();
    if (text.startsWith(QLatin1String("ch_")))
        filter.chargeId = text;
    else
        filter.outTradeNo = text;
    const Result<MerchantAndAmounts> common =
        merchantAndAmounts({m_merchant, m_minAmount, m_maxAmount});
    if (!common)
        return common.error();
    filter.merchantId = common->merchantId;
    filter.minAmount = common->amounts.min;
    filter.maxAmount = common->amounts.max;
    filter.state = m_state->currentData().toString();
    const QDateTime now = QDateTime::currentDateTime();
    switch (m_created->currentData().toInt()) {
    case LastHour:
        filter.from = now.addSecs(-3600);
        break;
    case LastDay:
        filter.from = now.addDays(-1);
        break;
    case LastWeek:
        filter.from = now.addDays(-7);
        break;
    case LastMonth:
        filter.from = now.addDays(-30);
        break;
    case Between:
        filter.from = m_from->dateTime();
        filter.to = m_to->dateTime();
        if (filter.from >= filter.to)
            return fieldError(tr("created"), QStringLiteral("invalid_filter"),
                              tr("the start of the time range must be before its end"));
        break;
    default:
        break;
    }
    return filter;
}

void HistoryView::showCreatedRange(int choice)
{
    const bool between = m_created->itemData(choice).toInt() == Between;
    m_from->setVisible(between);
    m_to->setVisible(between);
}

void HistoryView::setCreatedRange(const QDateTime &from, const QDateTime &to)
{
    m_created->setCurrentIndex(m_created->findData(Between));
    m_from->setDateTime(from);
    m_to->setDateTime(to);
}

void HistoryView::setTimelineSources(const QStringList &sources)
{
    m_timelineSources = sources;
    QStringList hidden;
    for (const QString &source : HistoryQuery::timelineSources())
        if (!sources.contains(source))
            hidden << source;
    m_timelineNote->setVisible(!hidden.isEmpty());
    m_timelineNote->setText(tr("Not shown, because this connection may not read them: %1.")
                                .arg(hidden.join(QStringLiteral(", "))));
}

void HistoryView::selectRow(int row)
{
    m_table->selectRow(row);
    m_table->scrollTo(m_model->index(row, 0));
}

void HistoryView::search()
{
    const Result<HistoryFilter> filter = currentFilter();
    if (!filter) {
        m_status->setText(filter.error().message);
        Q_EMIT failed(filter.error().message);
        return;
    }
    m_timeline->clear();
    m_status->setText(tr("Searching…"));
    m_model->search(*filter);
}

void HistoryView::showTimeline(const QString &chargeId)
{
    m_worker->submit<QList<TimelineEntry>>(
        this,
        [chargeId, sources = m_timelineSources](QSqlDatabase db) {
            return HistoryQuery::timeline(db, chargeId, sources);
        },
        [this](const Result<QList<TimelineEntry>> &entries) {
            m_timeline->clear();
            if (!entries) {
                Q_EMIT failed(entries.error().message);
                return;
            }
            for (const TimelineEntry &entry : *entries)
                m_timeline->addTopLevelItem(new QTreeWidgetItem(
                    {QLocale().toString(entry.at.toLocalTime(),
                                        QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")),
                     entry.source, entry.summary}));
            m_timeline->resizeColumnToContents(0);
            m_timeline->resizeColumnToContents(1);
            Q_EMIT timelineLoaded(int(entries->size()));
        });
}

void HistoryView::exportTo(const QString &fileName)
{
    const HistoryFilter filter = m_model->filter();
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    m_cancelExport = cancel;
    // Progress goes through the worker object, which lives on this thread and
    // outlives the job; the label is only looked at here, never from the job.
    QPointer<QLabel> status = m_status;
    QueryWorker *worker = m_worker;
    m_worker->submit<qint64>(
        this,
        [filter, fileName, cancel, status, worker](QSqlDatabase db) -> Result<qint64> {
            QFile file(fileName);
            if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
                return makeError(
                    ErrorKind::Environment,
                    QObject::tr("cannot write %1: %2").arg(fileName, file.errorString()));
            return HistoryQuery::exportCsv(db, filter, file, [cancel, status, worker](qint64 rows) {
                QMetaObject::invokeMethod(
                    worker,
                    [status, rows] {
                        if (status)
                            status->setText(QObject::tr("Exported %1 rows…").arg(rows));
                    },
                    Qt::QueuedConnection);
                return !cancel->load();
            });
        },
        [this](const Result<qint64> &rows) {
            m_export->setEnabled(true);
            if (rows)
                m_status->setText(tr("Exported %n payment(s).", nullptr, int(*rows)));
            else
                m_status->setText(rows.error().message);
            Q_EMIT exportFinished(rows ? *rows : -1, rows ? QString() : rows.error().message);
        });
    m_export->setEnabled(false);
}

void HistoryView::exportInteractively()
{
    const QString fileName = QFileDialog::getSaveFileName(
        this, tr("Export payments"), QStringLiteral("payments.csv"), tr("CSV (*.csv)"));
    if (fileName.isEmpty())
        return;
    auto *progress = new QProgressDialog(tr("Exporting payments…"), tr("Cancel"), 0, 0, this);
    progress->setWindowModality(Qt::WindowModal);
    progress->setAttribute(Qt::WA_DeleteOnClose);
    connect(progress, &QProgressDialog::canceled, this, [this] {
        if (m_cancelExport)
            m_cancelExport->store(true);
    });
    connect(this, &HistoryView::exportFinished, progress, &QProgressDialog::close);
    progress->show();
    exportTo(fileName);
}

} // namespace keel
