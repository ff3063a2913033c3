#pragma once

#include <QByteArray>
#include <QList>
#include <QMutex>
#include <QString>

#include <utility>

namespace keel::chaos {

// One request as its client lived it: every attempt's answer, and the final
// one it accepted. The end checks judge keel against this record only.
struct Told {
    enum class Kind { Charge, Capture, Refund, Saga };
    Kind kind = Kind::Charge;
    QByteArray key;
    QString merchant; // "payments" or "sagas"
    QString currency; // lower case, as sent
    qint64 amount = 0;
    QString target;    // the charge a capture or refund is for
    QString reference; // a charge's out_trade_no, when the client chose one
    bool declinedCard = false;
    QByteArray path; // what was sent, so an open request can be sent again
    QByteArray body;
    bool json = false;
    // Other bodies the client sent under the same key (a buggy client's
    // reuse): if keel took one of them, a resend of `body` is refused (422).
    QList<QByteArray> otherBodies;
    int status = 0;        // the final answer's HTTP status; 0: none before the client gave up
    QString object;        // ch_/re_/saga_ id the final answer named
    QString state;         // the object's status as told ("succeeded", "pending", ...)
    bool captured = false; // a charge's `captured` as told (a capture in doubt says false)
    QList<int> attempts;   // every answer's status, 0 for no answer
    qint64 firstMs = 0;    // since the run began
    qint64 lastMs = 0;
};

QString kindName(Told::Kind kind);
// An answer a client stops at: anything but "no answer", "busy, try again"
// (409 key in flight / contended, 429) and the 5xx a client retries.
bool isFinalAnswer(int status);
// Fills in the final answer's status and what it named.
void readAnswer(Told &told, int status, const QByteArray &body);
// Fills in a form-encoded charge's or refund's terms from `told.body`.
void describeFromBody(Told &told);

// Everything every client was told, shared by the client threads.
class ClientRecord final {
public:
    void add(Told told)
    {
        const QMutexLocker lock(&m_mutex);
        m_told.append(std::move(told));
    }
    QList<Told> all() const
    {
        const QMutexLocker lock(&m_mutex);
        return m_told;
    }

    QList<Told> takeAll()
    {
        const QMutexLocker lock(&m_mutex);
        return std::exchange(m_told, {});
    }

private:
    mutable QMutex m_mutex;
    QList<Told> m_told;
};

} // namespace keel::chaos
