#pragma once

#include <QString>

class QApplication;

namespace keel {

// Language and colours of the console, at start-up and when the user picks
// others (ConsoleShell then rebuilds the window).
class Appearance final {
public:
    // Installs keel's and Qt's translations for `language` ("zh_CN", "en";
    // empty: the system locale). Returns the language in effect.
    static QString applyLanguage(QApplication &app, const QString &language);
    // Fusion with a light or dark palette.
    static void applyTheme(QApplication &app, const QString &theme);
};

} // namespace keel
