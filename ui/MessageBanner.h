#pragma once

#include <QFrame>

class QLabel;

namespace keel {

// An inline message above the content: errors say what happened and what to
// do, without a modal box in the way.
class MessageBanner final : public QFrame {
    Q_OBJECT

public:
    enum class Kind { Information, Warning, Error };
    explicit MessageBanner(QWidget *parent = nullptr);

    void showMessage(const QString &text, Kind kind);
    QString text() const;

private:
    QLabel *m_text;
};

} // namespace keel
