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

QByteArray ConsoleSettings::windowGeometry() const
{
    return m_settings.value(QStringLiteral("window/geometry")).toByteArray();
}

void ConsoleSettings::setWindowGeometry(const QByteArray &geometry)
{
    m_settings.setValue(QStringLiteral("window/geometry"), geometry);
}

} // namespace keel
