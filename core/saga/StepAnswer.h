#pragma once

#include <QByteArray>
#include <QString>

namespace keel {

// What one call of a step's action or compensation came to.
struct StepAnswer {
    enum class Verdict {
        Succeeded, // it took effect (or had already)
        Failed,    // a business refusal: the participant did nothing and will not
        Ongoing,   // the participant is still working: ask again later
        Retryable, // no usable answer (5xx, timeout, refused): try again
    };

    Verdict verdict = Verdict::Retryable;
    int httpStatus = 0;    // the participant's status, 0 for built-in steps
    QString excerpt;       // the start of the participant's answer, for people
    QString error;         // why it did not succeed
    QByteArray resultJson; // what a succeeded forward action produced; empty: nothing
    qint64 chargeId = 0;   // a charge step's charge, once it exists

    static StepAnswer of(Verdict verdict, QString error = {})
    {
        StepAnswer answer;
        answer.verdict = verdict;
        answer.error = std::move(error);
        return answer;
    }
    bool succeeded() const { return verdict == Verdict::Succeeded; }
};

QString verdictName(StepAnswer::Verdict verdict);

} // namespace keel
