#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>

namespace keel {

class MainWindow;

// --screenshot: renders a view to a PNG once its data has loaded, then quits
// the application (exit code 3 if the data could not be loaded). With
// `awaitTraffic` (the demo) it waits, up to 40 s, until the charts show
// traffic and payments by state; never less than `minimumWaitMs`.
class Screenshot final : public QObject {
    Q_OBJECT
public:
    Screenshot(MainWindow &window, QString view, QString file, bool awaitTraffic,
               qint64 minimumWaitMs);

private:
    void handleOverviewRefreshed();
    bool overviewReady() const;
    void openHistoryThenShoot();
    void verifyAuditThenShoot();
    void shoot();

    MainWindow &m_window;
    QString m_view;
    QString m_file;
    bool m_awaitTraffic;
    qint64 m_minimumWaitMs;
    QElapsedTimer m_waited;
};

} // namespace keel
