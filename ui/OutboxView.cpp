#include "ui/OutboxView.h"

#include "core/ops/ActionDesk.h"
#include "ui/ListTables.h"
#include "ui/ProposeDialog.h"
#include "ui/QueryWorker.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace keel {
namespace {

constexpr int ListLimit = 1000;
constexpr int PageSize = 500;

QString lineage(qint64 resendOf, int resendCount)
{
    return resendOf == 0 ? QString()
                         : OutboxView::tr("resend %1 of #%2").arg(resendCount).arg(resendOf);
}

} // namespace

OutboxView::OutboxView(QueryWorker *worker, QWidget *parent)
    : QWidget(parent), m_worker(worker), m_summary(new QLabel(this)),
      m_groups(new QListWidget(this)),
      m_messages(makeListTable({tr("Id"), tr("Aggregate"), tr("Event"), tr("Attempts"),
                                tr("Parked at"), tr("Lineage"), tr("Last error")},
                               tr("Parked messages"), this, QAbstractItemView::ExtendedSelection)),
      m_moreMessages(new QPushButton(tr("&Load more"), this)),
      m_notifications(makeListTable(
          {tr("Id"), tr("Merchant"), tr("Event"), tr("Type"), tr("Charge"), tr("Attempts"),
           tr("Parked at"), tr("Last error")},
          tr("Notifications that gave up"), this, QAbstractItemView::ExtendedSelection)),
      m_resendSelected(new QPushButton(tr("Resend &selected…"), this)),
      m_resendGroup(new QPushButton(tr("Resend the whole &group…"), this)),
      m_resendNotifications(new QPushButton(tr("Resend selected &notifications…"), this))
{
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    m_summary->setAccessibleName(tr("Outbox summary"));
    m_summary->setWordWrap(true);
    auto *refreshButton = new QPushButton(tr("&Refresh"), this);
    connect(refreshButton, &QPushButton::clicked, this, &OutboxView::refresh);
    top->addWidget(m_summary, 1);
    top->addWidget(refreshButton);
    layout->addLayout(top);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(messagesPane());
    split->addWidget(notificationsPane());
    layout->addWidget(split, 1);
    connect(m_groups, &QListWidget::currentRowChanged, this, [this] { loadMessages(false); });
    m_moreMessages->setEnabled(false);
    connect(m_moreMessages, &QPushButton::clicked, this, [this] { loadMessages(true); });
    for (QTableWidget *table : {m_messages, m_notifications})
        connect(table, &QTableWidget::itemSelectionChanged, this, &OutboxView::updateButtons);
    connect(m_resendSelected, &QPushButton::clicked, this, [this] {
        if (ProposeDialog *dialog = proposeResendOfSelection())
            dialog->open();
    });
    connect(m_resendGroup, &QPushButton::clicked, this, [this] {
        if (ProposeDialog *dialog = proposeResendOfGroup())
            dialog->open();
    });
    connect(m_resendNotifications, &QPushButton::clicked, this, [this] {
        if (ProposeDialog *dialog = proposeResendOfNotifications())
            dialog->open();
    });
    updateButtons();
}

QWidget *OutboxView::messagesPane()
{
    auto *pane = new QWidget(this);
    auto *layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("<b>Parked messages</b>, grouped by error"), pane));
    auto *row = new QHBoxLayout;
    m_groups->setAccessibleName(tr("Parked by error"));
    m_groups->setMaximumWidth(320);
    row->addWidget(m_groups);
    row->addWidget(m_messages, 1);
    layout->addLayout(row, 1);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_moreMessages);
    buttons->addStretch(1);
    buttons->addWidget(m_resendSelected);
    buttons->addWidget(m_resendGroup);
    layout->addLayout(buttons);
    return pane;
}

QWidget *OutboxView::notificationsPane()
{
    auto *pane = new QWidget(this);
    auto *layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("<b>Merchant notifications that gave up</b>"), pane));
    layout->addWidget(m_notifications, 1);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_resendNotifications);
    layout->addLayout(buttons);
    return pane;
}

void OutboxView::setCanPropose(bool allowed)
{
    m_canPropose = allowed;
    const QString why = allowed ? QString()
                                : tr("Proposing needs keel_operator or keel_sre; this login "
                                     "only reads.");
    for (QPushButton *button : {m_resendSelected, m_resendGroup, m_resendNotifications})
        button->setToolTip(why);
    updateButtons();
}

void OutboxView::updateButtons()
{
    m_resendSelected->setEnabled(m_canPropose && !selectedMessages().isEmpty());
    m_resendGroup->setEnabled(m_canPropose && !m_shown.isEmpty());
    m_resendNotifications->setEnabled(m_canPropose &&
                                      !m_notifications->selectionModel()->selectedRows().isEmpty());
}

void OutboxView::refresh()
{
    m_worker->submit<OutboxSummary>(
        this, [](QSqlDatabase db) { return OutboxQuery::summary(db); },
        [this](const Result<OutboxSummary> &summary) {
            if (!summary) {
                Q_EMIT failed(summary.error().message);
                return;
            }
            showSummary(*summary);
        });
    m_worker->submit<QList<ParkedNotification>>(
        this, [](QSqlDatabase db) { return OutboxQuery::parkedNotifications(db, ListLimit); },
        [this](const Result<QList<ParkedNotification>> &parked) {
            if (!parked) {
                Q_EMIT failed(parked.error().message);
                return;
            }
            showNotifications(*parked);
        });
}

void OutboxView::showSummary(const OutboxSummary &summary)
{
    QStringList byType;
    for (const auto &[type, rows] : summary.backlogByType)
        byType << QStringLiteral("%1 %2").arg(type).arg(rows);
    qint64 parked = 0;
    for (const ParkedGroup &group : summary.parkedByError)
        parked += group.count;
    m_summary->setText(
        tr("Backlog %1%2 · oldest unpublished %3 s · parked %4 message(s), %5 notification(s)")
            .arg(summary.backlog)
            .arg(byType.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(byType.join(u", ")))
            .arg(QLocale().toString(double(summary.oldestPendingAgeMs) / 1000.0, 'f', 1))
            .arg(parked)
            .arg(summary.notificationsParked));
    // Keep the group the user is on, if it still exists.
    const QString current = m_groups->currentItem()
                                ? m_groups->currentItem()->data(Qt::UserRole).toString()
                                : QString();
    QSignalBlocker quiet(m_groups);
    m_groups->clear();
    auto *all = new QListWidgetItem(tr("All parked (%1)").arg(parked), m_groups);
    all->setData(Qt::UserRole, QString());
    int keep = 0;
    for (const ParkedGroup &group : summary.parkedByError) {
        auto *item = new QListWidgetItem(
            QStringLiteral("%1 (%2)")
                .arg(group.error.isEmpty() ? tr("no error recorded") : group.error)
                .arg(group.count),
            m_groups);
        item->setData(Qt::UserRole, group.error);
        item->setToolTip(group.error);
        if (group.error == current)
            keep = m_groups->count() - 1;
    }
    m_groups->setCurrentRow(keep);
    loadMessages(false);
}

void OutboxView::loadMessages(bool append)
{
    const QString error = m_groups->currentItem()
                              ? m_groups->currentItem()->data(Qt::UserRole).toString()
                              : QString();
    const qint64 after = append && !m_shown.isEmpty() ? m_shown.constLast().id : 0;
    m_moreMessages->setEnabled(false);
    m_worker->submit<QList<ParkedMessage>>(
        this,
        [error, after](QSqlDatabase db) { return OutboxQuery::parked(db, error, PageSize, after); },
        [this, append](const Result<QList<ParkedMessage>> &messages) {
            if (!messages) {
                Q_EMIT failed(messages.error().message);
                return;
            }
            showMessages(*messages, append);
            Q_EMIT refreshed();
        });
}

void OutboxView::showMessages(const QList<ParkedMessage> &messages, bool append)
{
    const int first = append ? int(m_shown.size()) : 0;
    m_shown = append ? m_shown + messages : messages;
    m_moreMessages->setEnabled(messages.size() == PageSize);
    m_messages->setRowCount(int(m_shown.size()));
    for (int row = first; row < m_shown.size(); ++row) {
        const ParkedMessage &message = m_shown[row];
        fillRow(m_messages, row,
                {QString::number(message.id), message.aggregate, message.eventType,
                 QString::number(message.attempts), localTimeText(message.parkedAt),
                 lineage(message.resendOf, message.resendCount), message.lastError});
    }
    if (!append) // sized by the first page: appending stays proportional to the page
        m_messages->resizeColumnsToContents();
    updateButtons();
}

void OutboxView::showNotifications(const QList<ParkedNotification> &notifications)
{
    m_shownNotifications = notifications;
    m_notifications->setRowCount(int(notifications.size()));
    for (int row = 0; row < notifications.size(); ++row) {
        const ParkedNotification &parked = notifications[row];
        fillRow(m_notifications, row,
                {QString::number(parked.id), QString::number(parked.merchantId), parked.eventId,
                 parked.eventType, parked.chargeId, QString::number(parked.attempts),
                 localTimeText(parked.parkedAt), parked.lastError});
    }
    m_notifications->resizeColumnsToContents();
    updateButtons();
}

QList<ParkedMessage> OutboxView::selectedMessages() const
{
    QList<ParkedMessage> selected;
    for (const QModelIndex &index : m_messages->selectionModel()->selectedRows())
        if (index.row() < m_shown.size())
            selected << m_shown.at(index.row());
    std::sort(selected.begin(), selected.end(),
              [](const ParkedMessage &a, const ParkedMessage &b) { return a.id < b.id; });
    return selected;
}

ProposeDialog *OutboxView::proposeResendOfSelection()
{
    return proposeResend(selectedMessages());
}

ProposeDialog *OutboxView::proposeResendOfGroup()
{
    return proposeResend(m_shown);
}

ProposeDialog *OutboxView::proposeResend(const QList<ParkedMessage> &messages)
{
    QList<ResendRow> rows;
    for (const ParkedMessage &message : messages)
        rows << ResendRow{message.id, message.version,
                          QStringLiteral("%1  %2  (%3)")
                              .arg(message.aggregate, message.eventType, message.lastError)};
    return proposeResendOf(
        QStringLiteral("outbox.resend"), QStringLiteral("outbox"),
        tr("%1 parked messages").arg(rows.size()),
        tr("Each message is published again as a new outbox row that names the original "
           "(lineage); the original stays parked and is marked resent."),
        rows);
}

ProposeDialog *OutboxView::proposeResendOfNotifications()
{
    QList<ResendRow> rows;
    for (const QModelIndex &index : m_notifications->selectionModel()->selectedRows())
        if (index.row() < m_shownNotifications.size()) {
            const ParkedNotification &parked = m_shownNotifications.at(index.row());
            rows << ResendRow{parked.id, parked.version,
                              QStringLiteral("%1  %2  (%3)")
                                  .arg(parked.eventId, parked.eventType, parked.lastError)};
        }
    return proposeResendOf(
        QStringLiteral("notification.resend"), QStringLiteral("notification"),
        tr("%1 notifications").arg(rows.size()),
        tr("Each notification is delivered again with the same event id, as a new delivery "
           "that names the one it repeats."),
        rows);
}

ProposeDialog *OutboxView::proposeResendOf(const QString &kind, const QString &targetType,
                                           const QString &many, const QString &change,
                                           const QList<ResendRow> &rows)
{
    if (rows.isEmpty() || !m_canPropose)
        return nullptr;
    ProposalRequest request;
    request.kind = kind;
    request.targetType = targetType;
    request.summary = rows.size() == 1 ? QString::number(rows.first().id) : many;
    QStringList preview;
    for (const ResendRow &row : rows) {
        request.targets << ActionTarget{QString::number(row.id), row.version};
        preview << QStringLiteral("#%1  %2").arg(row.id).arg(row.description);
    }
    auto *dialog = new ProposeDialog(m_worker, request, change, preview, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ProposeDialog::proposed, this, &OutboxView::proposed);
    return dialog;
}

} // namespace keel
