#include "ui/ChartPanel.h"

#include <QFileDialog>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/QCustomPlotInclude.h"

#include <cmath>
#include <limits>

namespace keel {

ChartPanel::ChartPanel(const QString &title, const QString &unit, QWidget *parent)
    : QWidget(parent), m_title(new QLabel(title, this)), m_plot(new QCustomPlot(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *header = new QHBoxLayout;
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    auto *save = new QToolButton(this);
    save->setText(tr("Export…"));
    save->setAccessibleName(tr("Export the chart \"%1\" to PNG or PDF").arg(title));
    save->setAutoRaise(true);
    header->addWidget(m_title, 1);
    header->addWidget(save);
    layout->addLayout(header);
    layout->addWidget(m_plot, 1);
    connect(save, &QToolButton::clicked, this, &ChartPanel::exportInteractively);

    QSharedPointer<QCPAxisTickerDateTime> ticker(new QCPAxisTickerDateTime);
    ticker->setDateTimeFormat(QStringLiteral("HH:mm"));
    ticker->setDateTimeSpec(Qt::LocalTime);
    m_plot->xAxis->setTicker(ticker);
    m_plot->yAxis->setLabel(unit);
    m_plot->legend->setVisible(true);
    m_plot->legend->setFont(QFont(font().family(), 8));
    // Two entries a row: captured and refunded of a currency side by side.
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setWrap(2);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    m_plot->setMinimumHeight(180);
    // One polyline per series instead of a segment at a time: repaints on a
    // range change stay short enough not to be felt.
    m_plot->setPlottingHint(QCP::phFastPolylines, true);
    // The chart follows the application's palette (light or dark).
    const QPalette colours = palette();
    m_plot->setBackground(colours.color(QPalette::Base));
    m_plot->legend->setBrush(colours.color(QPalette::Base));
    m_plot->legend->setTextColor(colours.color(QPalette::Text));
    m_plot->legend->setBorderPen(QPen(colours.color(QPalette::Mid)));
    for (QCPAxis *axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setBasePen(QPen(colours.color(QPalette::Text)));
        axis->setTickPen(QPen(colours.color(QPalette::Text)));
        axis->setSubTickPen(QPen(colours.color(QPalette::Text)));
        axis->setTickLabelColor(colours.color(QPalette::Text));
        axis->setLabelColor(colours.color(QPalette::Text));
        axis->grid()->setPen(QPen(colours.color(QPalette::Mid), 0, Qt::DotLine));
    }
    m_plot->setAccessibleName(title);
}

QString ChartPanel::title() const
{
    return m_title->text();
}

void ChartPanel::setLogarithmic(bool logarithmic)
{
    m_logarithmic = logarithmic;
    m_plot->yAxis->setScaleType(logarithmic ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (logarithmic)
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    else
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
}

void ChartPanel::setEmptyText(const QString &text)
{
    if (!m_emptyText) {
        m_emptyText = new QCPItemText(m_plot);
        m_emptyText->position->setType(QCPItemPosition::ptAxisRectRatio);
        m_emptyText->position->setCoords(0.5, 0.5);
        m_emptyText->setColor(palette().color(QPalette::PlaceholderText));
    }
    m_emptyText->setText(text);
}

void ChartPanel::setLines(const QList<qint64> &times, const QList<Line> &lines, qint64 rangeSeconds)
{
    // Refreshes usually bring the same lines again: keep their graphs (and
    // legend items, whose layout is the costly part) and swap the data only.
    bool sameLines = m_plot->graphCount() == lines.size();
    for (int i = 0; sameLines && i < lines.size(); ++i)
        sameLines = m_plot->graph(i)->name() == lines.at(i).name;
    if (!sameLines)
        m_plot->clearGraphs();
    QVector<double> keys;
    keys.reserve(times.size());
    for (const qint64 time : times)
        keys << double(time);
    double top = 0;
    double bottom = 0; // below zero only for series that go there (a credit balance)
    for (int i = 0; i < lines.size(); ++i) {
        const Line &line = lines.at(i);
        QCPGraph *graph = sameLines ? m_plot->graph(i) : m_plot->addGraph();
        graph->setName(line.name);
        graph->setPen(QPen(line.colour, 1.6, line.style));
        // A marker per point, so a lone minute between gaps is still visible;
        // on dense series they cost paint time and show nothing more.
        graph->setScatterStyle(keys.size() <= 90 ? QCPScatterStyle(QCPScatterStyle::ssDisc, 4)
                                                 : QCPScatterStyle(QCPScatterStyle::ssNone));
        QVector<double> values(line.values.cbegin(), line.values.cend());
        if (m_logarithmic)
            for (double &value : values)
                if (value < 1)
                    value = std::numeric_limits<double>::quiet_NaN();
        graph->setData(keys, values, true);
        for (const double value : std::as_const(values))
            if (!std::isnan(value)) {
                top = std::max(top, value);
                bottom = std::min(bottom, value);
            }
    }
    m_plot->legend->setVisible(!lines.isEmpty()); // an empty legend is a stray box
    if (m_emptyText)
        m_emptyText->setVisible(lines.isEmpty());
    auto ticker = m_plot->xAxis->ticker().dynamicCast<QCPAxisTickerDateTime>();
    if (ticker)
        ticker->setDateTimeFormat(rangeSeconds > 24 * 3600 ? QStringLiteral("MM-dd HH:mm")
                                                           : QStringLiteral("HH:mm"));
    if (!times.isEmpty())
        m_plot->xAxis->setRange(double(times.first()), double(times.last()));
    if (m_logarithmic)
        m_plot->yAxis->setRange(0.8, top > 1 ? top * 2.5 : 10);
    else
        m_plot->yAxis->setRange(bottom * 1.15, top > 0 || bottom < 0 ? top * 1.15 : 1);
    // Queued: the charts of one refresh repaint in separate events rather than
    // holding the GUI thread for all of them at once.
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

bool ChartPanel::exportTo(const QString &fileName)
{
    if (fileName.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive))
        return m_plot->savePdf(fileName, 900, 420);
    return m_plot->savePng(fileName, 900, 420);
}

void ChartPanel::exportInteractively()
{
    const QString fileName = QFileDialog::getSaveFileName(
        this, tr("Export chart"), m_title->text() + QStringLiteral(".png"),
        tr("PNG image (*.png);;PDF document (*.pdf)"));
    if (!fileName.isEmpty())
        exportTo(fileName);
}

} // namespace keel
