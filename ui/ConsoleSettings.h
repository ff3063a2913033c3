#pragma once

#include <QByteArray>
#include <QSettings>
#include <QString>

namespace keel {

// The console's settings, behind one typed facade so no widget reads QSettings
// keys of its own. Nothing secret is ever stored here: passwords live in the
// OS keychain or .pgpass.
class ConsoleSettings final {
public:
    ConsoleSettings();

    qint64 overviewRangeSeconds() const;
    void setOverviewRangeSeconds(qint64 seconds);
    QString language() const; // "zh_CN", "en", or empty for the system's
    void setLanguage(const QString &language);
    QString theme() const; // "light" or "dark"
    void setTheme(const QString &theme);
    QByteArray windowGeometry() const;
    void setWindowGeometry(const QByteArray &geometry);

private:
    QSettings m_settings;
};

} // namespace keel
