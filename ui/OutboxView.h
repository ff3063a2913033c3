#pragma once

#include "core/read/OutboxQuery.h"

#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;
class QTableWidget;

namespace keel {

class QueryWorker;
class ProposeDialog;
struct ActionRecord;

// The SREs' outbox: what waits to be published, the messages the relay gave
// up on grouped by error, and the merchant notifications that gave up; a
// selection or a whole group can be proposed for resending.
class OutboxView final : public QWidget {
    Q_OBJECT

public:
    explicit OutboxView(QueryWorker *worker, QWidget *parent = nullptr);

    QTableWidget *messages() const { return m_messages; }
    QTableWidget *notifications() const { return m_notifications; }
    QListWidget *groups() const { return m_groups; }
    QPushButton *moreMessagesButton() const { return m_moreMessages; }
    QPushButton *resendSelectedButton() const { return m_resendSelected; }
    QPushButton *resendGroupButton() const { return m_resendGroup; }
    QPushButton *resendNotificationsButton() const { return m_resendNotifications; }
    // Whether this login may propose (the database decides anyway).
    void setCanPropose(bool allowed);
    // The dialog a resend opens, made but not shown (tests drive it).
    ProposeDialog *proposeResendOfSelection();
    ProposeDialog *proposeResendOfGroup();
    ProposeDialog *proposeResendOfNotifications();

public Q_SLOTS:
    void refresh();

Q_SIGNALS:
    void refreshed();
    void proposed(const ActionRecord &record);
    void failed(const QString &message);

private:
    QWidget *messagesPane();
    QWidget *notificationsPane();
    void showSummary(const OutboxSummary &summary);
    void loadMessages(bool append);
    void showMessages(const QList<ParkedMessage> &messages, bool append);
    void showNotifications(const QList<ParkedNotification> &notifications);
    void updateButtons();
    struct ResendRow {
        qint64 id = 0;
        QString version;
        QString description;
    };
    ProposeDialog *proposeResend(const QList<ParkedMessage> &messages);
    ProposeDialog *proposeResendOf(const QString &kind, const QString &targetType,
                                   const QString &many, const QString &change,
                                   const QList<ResendRow> &rows);
    QList<ParkedMessage> selectedMessages() const;

    QueryWorker *m_worker;
    QLabel *m_summary;
    QListWidget *m_groups;
    QTableWidget *m_messages;
    QPushButton *m_moreMessages;
    QTableWidget *m_notifications;
    QPushButton *m_resendSelected;
    QPushButton *m_resendGroup;
    QPushButton *m_resendNotifications;
    QList<ParkedMessage> m_shown;
    QList<ParkedNotification> m_shownNotifications;
    bool m_canPropose = false;
};

} // namespace keel
