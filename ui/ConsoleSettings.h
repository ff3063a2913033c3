#pragma once

#include "core/db/ConnectionProfile.h"

#include <QByteArray>
#include <QList>
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

    // Saved connection profiles (no passwords in them, by construction).
    QList<ConnectionProfile> profiles() const;
    // Adds the profile, or replaces the one with its name (or `previousName`).
    void saveProfile(const ConnectionProfile &profile, const QString &previousName = {});
    void removeProfile(const QString &name);
    QString lastProfile() const;
    void setLastProfile(const QString &name);

    // Where the settings live, for tests and support questions.
    QString fileName() const { return m_settings.fileName(); }

private:
    QSettings m_settings;
};

} // namespace keel
