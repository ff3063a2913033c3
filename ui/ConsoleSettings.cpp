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

QList<ConnectionProfile> ConsoleSettings::profiles() const
{
    QList<ConnectionProfile> profiles;
    auto &settings = const_cast<QSettings &>(m_settings); // array reads need the cursor
    const int count = settings.beginReadArray(QStringLiteral("profiles"));
    for (int i = 0; i < count; ++i) {
        settings.setArrayIndex(i);
        QVariantMap map;
        for (const QString &key : settings.childKeys())
            map.insert(key, settings.value(key));
        profiles << ConnectionProfile::fromMap(map);
    }
    settings.endArray();
    return profiles;
}

namespace {

void writeProfiles(QSettings &settings, const QList<ConnectionProfile> &profiles)
{
    settings.remove(QStringLiteral("profiles"));
    settings.beginWriteArray(QStringLiteral("profiles"), int(profiles.size()));
    for (int i = 0; i < profiles.size(); ++i) {
        settings.setArrayIndex(i);
        const QVariantMap map = profiles.at(i).toMap();
        for (auto it = map.cbegin(); it != map.cend(); ++it)
            settings.setValue(it.key(), it.value());
    }
    settings.endArray();
}

} // namespace

void ConsoleSettings::saveProfile(const ConnectionProfile &profile, const QString &previousName)
{
    const QList<ConnectionProfile> before = profiles();
    QList<ConnectionProfile> after;
    qsizetype at = -1; // a renamed or edited profile keeps its place
    for (const ConnectionProfile &existing : before) {
        if (existing.name == profile.name || existing.name == previousName) {
            if (at < 0)
                at = after.size();
            continue;
        }
        after << existing;
    }
    after.insert(at < 0 ? after.size() : at, profile);
    writeProfiles(m_settings, after);
}

void ConsoleSettings::removeProfile(const QString &name)
{
    QList<ConnectionProfile> all = profiles();
    all.removeIf([&](const ConnectionProfile &candidate) { return candidate.name == name; });
    writeProfiles(m_settings, all);
}

QString ConsoleSettings::lastProfile() const
{
    return m_settings.value(QStringLiteral("connection/last")).toString();
}

void ConsoleSettings::setLastProfile(const QString &name)
{
    m_settings.setValue(QStringLiteral("connection/last"), name);
}

} // namespace keel
