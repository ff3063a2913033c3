#pragma once

#include <QColor>
#include <QList>
#include <QWidget>

class QCPItemText;
class QCustomPlot;
class QLabel;

namespace keel {

// One titled time-series chart of the Overview, exportable to PNG and PDF.
class ChartPanel final : public QWidget {
    Q_OBJECT

public:
    ChartPanel(const QString &title, const QString &unit, QWidget *parent = nullptr);

    struct Line {
        QString name;
        QColor colour;
        QList<double> values; // NaN leaves a gap
        Qt::PenStyle style = Qt::SolidLine;
    };
    // `times` are seconds since the epoch, one per value.
    void setLines(const QList<qint64> &times, const QList<Line> &lines, qint64 rangeSeconds);

    // A logarithmic value axis, for series that differ by orders of magnitude;
    // values below 1 are left out.
    void setLogarithmic(bool logarithmic);
    // Said in the middle of the chart when there is no line to draw.
    void setEmptyText(const QString &text);

    bool exportTo(const QString &fileName);
    QCustomPlot *plot() const { return m_plot; }
    QString title() const;

private:
    void exportInteractively();

    QLabel *m_title;
    QCustomPlot *m_plot;
    bool m_logarithmic = false;
    QCPItemText *m_emptyText = nullptr;
};

} // namespace keel
