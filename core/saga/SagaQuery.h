#pragma once

#include "core/Result.h"
#include "core/saga/SagaRecord.h"

#include <QList>
#include <QString>

#include <optional>

namespace keel {

class LibpqConnection;

// What the console's saga list filters by; empty fields do not filter.
struct SagaFilter {
    QString definition; // the definition's name
    QString status;     // running, compensating, succeeded, compensated, parked
    qint64 merchantId = 0;
    QString businessKey;
    int olderThanSeconds = 0; // created at least this long ago
    bool stuckOnly = false;
    int attemptLimit = 5; // a step past this many attempts makes its saga stuck
    int limit = 100;
    // The page after this row of the previous page (keyset paging).
    struct Cursor {
        bool stuck = false;
        qint64 createdAtMicros = 0; // exact, so the row itself is never after itself
        qint64 id = 0;
    };
    std::optional<Cursor> after;
};

// One row of the saga list.
struct SagaSummary {
    qint64 id = 0;
    QString publicId;
    QString transType;
    QString name;
    QString status;
    qint64 merchantId = 0;
    QString businessKey;
    int currentStep = 0;
    QString currentStepName;
    int mostAttempts = 0; // the most attempts (action and compensation) any step has had
    bool stuck = false;
    QString lastError;
    int version = 0;
    qint64 createdAtMs = 0;
    qint64 updatedAtMs = 0;
    qint64 createdAtMicros = 0;

    SagaFilter::Cursor cursor() const { return {stuck, createdAtMicros, id}; }
};

// The saga list people read: filtered in SQL, the stuck ones first (by age
// and by attempt count), then oldest first, in keyset pages.
class SagaQuery final {
public:
    explicit SagaQuery(LibpqConnection &connection) : m_connection(connection) {}

    Result<QList<SagaSummary>> list(const SagaFilter &filter);
    // One saga of any merchant with its steps and its whole event log (every
    // attempt, payload, response excerpt, error and timing, every action).
    Result<std::optional<SagaRecord>> one(const QString &publicId);

private:
    LibpqConnection &m_connection;
};

} // namespace keel
