#include "ui/OperationsPanel.h"

#include "ui/QueryWorker.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QTimer>

namespace keel {
namespace {

constexpr int RefreshMs = 15000;

QLabel *figureLabel(const QString &name, QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setAccessibleName(name);
    label->setFrameShape(QFrame::StyledPanel);
    label->setMargin(6);
    label->setTextFormat(Qt::RichText);
    label->hide();
    return label;
}

} // namespace

OperationsPanel::OperationsPanel(QueryWorker *worker, QWidget *parent)
    : QWidget(parent), m_worker(worker), m_outbox(figureLabel(tr("Outbox now"), this)),
      m_sagas(figureLabel(tr("Sagas now"), this)),
      m_cases(figureLabel(tr("Open cases by age"), this)), m_timer(new QTimer(this))
{
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    for (QLabel *label : {m_outbox, m_sagas, m_cases})
        row->addWidget(label, 1);
    m_timer->setInterval(RefreshMs);
    connect(m_timer, &QTimer::timeout, this, &OperationsPanel::refresh);
}

void OperationsPanel::setScope(const AttentionScope &scope)
{
    m_scope = scope;
    m_timer->start();
    refresh();
}

void OperationsPanel::refresh()
{
    const AttentionScope scope = m_scope;
    m_worker->submit<OperationsNow>(
        this, [scope](QSqlDatabase db) { return OperationsNow::load(db, scope); },
        [this](const Result<OperationsNow> &now) {
            if (now)
                show(*now);
        });
}

void OperationsPanel::show(const OperationsNow &now)
{
    m_now = now;
    const QLocale locale;
    m_outbox->setVisible(now.outboxBacklog >= 0);
    m_outbox->setText(tr("<b>Outbox</b><br>%1 waiting · oldest %2 s<br>%3 parked")
                          .arg(locale.toString(now.outboxBacklog))
                          .arg(locale.toString(double(now.outboxOldestMs) / 1000.0, 'f', 1))
                          .arg(locale.toString(now.outboxParked)));
    m_sagas->setVisible(now.sagasRunning >= 0);
    m_sagas->setText(tr("<b>Sagas</b><br>%1 running · %2 compensating<br>%3 stuck · %4 parked")
                         .arg(locale.toString(now.sagasRunning))
                         .arg(locale.toString(now.sagasCompensating))
                         .arg(locale.toString(now.sagasStuck))
                         .arg(locale.toString(now.sagasParked)));
    m_cases->setVisible(now.casesByAge[0] >= 0);
    m_cases->setText(tr("<b>Open suspense cases by age</b><br>0–1 d: %1 · 1–3 d: %2<br>"
                        "3–7 d: %3 · over 7 d: %4")
                         .arg(locale.toString(now.casesByAge[0]))
                         .arg(locale.toString(now.casesByAge[1]))
                         .arg(locale.toString(now.casesByAge[2]))
                         .arg(locale.toString(now.casesByAge[3])));
    Q_EMIT refreshed();
}

} // namespace keel
