#pragma once

#include "core/read/SuspenseQuery.h"

#include <QWidget>

class QLineEdit;

namespace keel {

// Finding a case when the settlement staff know something about it: its
// charge, saga or the merchant's order number, the merchant, the amount
// (exact or a range, in minor units), the days it was opened between.
class CaseSearchBar final : public QWidget {
    Q_OBJECT

public:
    explicit CaseSearchBar(QWidget *parent = nullptr);

    // The fields' narrowing applied to `filter`; an error names the field.
    Status narrow(SuspenseCaseFilter &filter) const;
    // What the search says, for the top of an export ("" when nothing is set).
    QString describe() const;

    QLineEdit *reference() const { return m_reference; }
    QLineEdit *merchant() const { return m_merchant; }
    QLineEdit *minAmount() const { return m_minAmount; }
    QLineEdit *maxAmount() const { return m_maxAmount; }
    QLineEdit *openedFrom() const { return m_from; }
    QLineEdit *openedTo() const { return m_to; }

Q_SIGNALS:
    void searchRequested();

private:
    QLineEdit *m_reference;
    QLineEdit *m_merchant;
    QLineEdit *m_minAmount;
    QLineEdit *m_maxAmount;
    QLineEdit *m_from;
    QLineEdit *m_to;
};

} // namespace keel
