#pragma once

#include "core/signing/RsaKey.h"

#include <QList>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace keel {

// What the simulated channel tells the merchant's server about one trade.
struct TradeResult {
    QString reference; // keel's charge id, Alipay's out_trade_no
    bool succeeded = true;
    QString totalAmount; // in major units, as Alipay writes it ("19.99")
    QString currency;    // trans_currency
    QString tradeNo;     // the simulated Alipay's own id for the trade, trade_no
};

struct AlipayNotifierOptions {
    QString url;       // http://HOST:PORT/path of the notify endpoint
    RsaKey signingKey; // the simulated Alipay's private key
    int delayMs = 200; // a result is sent this long after the trade
    // Pauses before each repeat while the endpoint does not answer
    // "success"; after the last the notice is given up (and logged).
    QList<int> retryMs = {1000, 2000, 5000, 10000, 30000};
};

// Sends trade results the way Alipay does: a form POST signed RSA2 over the
// sorted parameters, repeated until the endpoint answers "success". The queue
// is in memory: a simulator that is killed forgets what it had not yet sent
// (the gateway's reconciler still asks the channel).
class AlipayNotifier final {
public:
    explicit AlipayNotifier(AlipayNotifierOptions options);
    ~AlipayNotifier();
    AlipayNotifier(const AlipayNotifier &) = delete;
    AlipayNotifier &operator=(const AlipayNotifier &) = delete;

    void notify(const TradeResult &trade);
    qint64 delivered() const { return m_delivered; }

private:
    struct Pending {
        TradeResult trade;
        qint64 dueMs = 0;
        int attempt = 0;
    };
    void run();
    bool send(const TradeResult &trade);

    AlipayNotifierOptions m_options;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Pending> m_pending;
    bool m_stopping = false;
    std::atomic<qint64> m_delivered{0};
    std::thread m_thread;
};

} // namespace keel
