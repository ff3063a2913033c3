#include "ui/LiveFeed.h"

#include "core/db/ChangeListener.h"

namespace keel {

LiveFeed::LiveFeed(const ConnectionSettings &primary, QObject *parent) : QObject(parent)
{
    // The callbacks run on the listener's thread; the destructor joins it
    // before this object goes, and queued calls to a deleted object are dropped.
    ChangeListener::Callbacks callbacks;
    callbacks.notified = [this](const QString &, const QString &) {
        QMetaObject::invokeMethod(
            this, [this] { Q_EMIT metricsChanged(); }, Qt::QueuedConnection);
    };
    callbacks.stateChanged = [this](bool listening, const QString &message) {
        QMetaObject::invokeMethod(
            this,
            [this, listening, message] {
                if (m_listening == listening)
                    return;
                m_listening = listening;
                Q_EMIT listeningChanged(listening, message);
            },
            Qt::QueuedConnection);
    };
    m_listener = std::make_unique<ChangeListener>(
        primary, QStringList{ChangeListener::metricsChannel()}, std::move(callbacks));
    m_listener->start();
}

LiveFeed::~LiveFeed()
{
    m_listener->stop();
}

} // namespace keel
