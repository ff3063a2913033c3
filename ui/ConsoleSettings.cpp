#include "ui/ConsoleSettings.h"

namespace keel {

ConsoleSettings::ConsoleSettings()
    : m_settings(QStringLiteral("keel"), QStringLiteral("keel-console"))
{}

qint64 ConsoleSettings::overviewRangeSeconds() const
{
    return m_settings.value(QStringLiteral("overview/rangeSeconds"), 15 * 60).toLongLong();
}

void ConsoleSettings::setOverviewRangeSeconds(qint64 seconds)
{
    m_settings.setValue(QStringLiteral("overview/rangeSeconds"), seconds);
}

QString ConsoleSettings::language() const
{
    return m_settings.value(QStringLiteral("ui/language")).toString();
}

void ConsoleSettings::setLanguage(const QString &language)
{
    m_settings.setValue(QStringLiteral("ui/language"), language);
}

QString ConsoleSettings::theme() const
{
    return m_settings.value(QStringLiteral("ui/theme"), QStringLiteral("light")).toString();
}

void ConsoleSettings::setTheme(const QString &theme)
{
    m_settings.setValue(QStringLiteral("ui/theme"), theme);
}

QByteArray ConsoleSettings::windowGeometry() const
{
    return m_settings.value(QStringLiteral("window/geometry")).toByteArray();
}

void ConsoleSettings::setWindowGeometry(const QByteArray &geometry)
{
    m_settings.setValue(QStringLiteral("window/geometry"), geometry);
}

} // namespace keel
