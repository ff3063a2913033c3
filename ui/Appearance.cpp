#include "ui/Appearance.h"

#include <QApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>
#include <QTranslator>

namespace keel {

QString Appearance::applyLanguage(QApplication &app, const QString &language)
{
    const QString chosen = language.isEmpty() ? (QLocale::system().language() == QLocale::Chinese
                                                     ? QStringLiteral("zh_CN")
                                                     : QStringLiteral("en"))
                                              : language;
    // A switch at run time replaces what an earlier call installed.
    const QString installed = QStringLiteral("keel-translation");
    for (QTranslator *old :
         app.findChildren<QTranslator *>(installed, Qt::FindDirectChildrenOnly)) {
        QApplication::removeTranslator(old);
        delete old;
    }
    if (chosen == QLatin1String("en")) {
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        return chosen;
    }
    auto *keel = new QTranslator(&app);
    keel->setObjectName(installed);
    if (keel->load(QStringLiteral(":/keel/i18n/keel_%1.qm").arg(chosen)))
        QApplication::installTranslator(keel);
    // Qt's own dialogs and buttons (Cancel, Save, ...).
    auto *qt = new QTranslator(&app);
    qt->setObjectName(installed);
    if (qt->load(QStringLiteral("qtbase_%1").arg(chosen),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QApplication::installTranslator(qt);
    QLocale::setDefault(QLocale(chosen));
    return chosen;
}

void Appearance::applyTheme(QApplication &app, const QString &theme)
{
    Q_UNUSED(app)
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    if (theme != QLatin1String("dark")) {
        QApplication::setPalette(QApplication::style()->standardPalette());
        return;
    }
    QPalette dark;
    const QColor window(0x2b, 0x2d, 0x31), base(0x1e, 0x1f, 0x22), text(0xdf, 0xe1, 0xe5);
    dark.setColor(QPalette::Window, window);
    dark.setColor(QPalette::WindowText, text);
    dark.setColor(QPalette::Base, base);
    dark.setColor(QPalette::AlternateBase, window);
    dark.setColor(QPalette::ToolTipBase, base);
    dark.setColor(QPalette::ToolTipText, text);
    dark.setColor(QPalette::Text, text);
    dark.setColor(QPalette::Button, window);
    dark.setColor(QPalette::ButtonText, text);
    dark.setColor(QPalette::Highlight, QColor(0x35, 0x74, 0xc4));
    dark.setColor(QPalette::HighlightedText, Qt::white);
    dark.setColor(QPalette::PlaceholderText, QColor(0x8a, 0x8d, 0x93));
    dark.setColor(QPalette::Disabled, QPalette::Text, QColor(0x70, 0x73, 0x78));
    dark.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x70, 0x73, 0x78));
    QApplication::setPalette(dark);
}

} // namespace keel
