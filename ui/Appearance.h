#pragma once

#include <QString>

class QApplication;

namespace keel {

// Language and colours of the console, applied once at start-up.
class Appearance final {
public:
    // Installs keel's and Qt's translations for `language` ("zh_CN", "en";
    // empty: the system locale). Returns the language in effect.
    static QString applyLanguage(QApplication &app, const QString &language);
    // Fusion with a light or dark palette.
    static void applyTheme(QApplication &app, const QString &theme);
};

} // namespace keel
