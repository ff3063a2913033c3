#pragma once

#include <QObject>

#include <memory>

namespace keel {

class ChangeListener;
class ConnectionSettings;

// The console's end of LISTEN/NOTIFY: the listener runs on its own thread and
// connection; its news arrives here as signals on the GUI thread. It listens
// on the primary, because a streaming replica does not relay notifications.
class LiveFeed final : public QObject {
    Q_OBJECT

public:
    explicit LiveFeed(const ConnectionSettings &primary, QObject *parent = nullptr);
    ~LiveFeed() override;

    bool listening() const { return m_listening; }

Q_SIGNALS:
    void metricsChanged();
    void listeningChanged(bool listening, const QString &message);

private:
    std::unique_ptr<ChangeListener> m_listener;
    bool m_listening = false;
};

} // namespace keel
