#include "ui/StatusWords.h"

#include <QCoreApplication>

#include <array>
#include <utility>

namespace keel {
namespace {

// The values lupdate sees, with the context they are translated in.
constexpr std::array<std::pair<const char *, const char *>, 34> Words{{
    {"running", QT_TRANSLATE_NOOP("keel::StatusWords", "running")},
    {"compensating", QT_TRANSLATE_NOOP("keel::StatusWords", "compensating")},
    {"succeeded", QT_TRANSLATE_NOOP("keel::StatusWords", "succeeded")},
    {"compensated", QT_TRANSLATE_NOOP("keel::StatusWords", "compensated")},
    {"parked", QT_TRANSLATE_NOOP("keel::StatusWords", "parked")},
    {"resolved", QT_TRANSLATE_NOOP("keel::StatusWords", "resolved")},
    {"pending", QT_TRANSLATE_NOOP("keel::StatusWords", "pending")},
    {"failed", QT_TRANSLATE_NOOP("keel::StatusWords", "failed")},
    {"compensation_failed", QT_TRANSLATE_NOOP("keel::StatusWords", "compensation failed")},
    {"skipped", QT_TRANSLATE_NOOP("keel::StatusWords", "skipped")},
    {"open", QT_TRANSLATE_NOOP("keel::StatusWords", "open")},
    {"in_review", QT_TRANSLATE_NOOP("keel::StatusWords", "in review")},
    {"written_off", QT_TRANSLATE_NOOP("keel::StatusWords", "written off")},
    {"proposed", QT_TRANSLATE_NOOP("keel::StatusWords", "proposed")},
    {"approved", QT_TRANSLATE_NOOP("keel::StatusWords", "approved")},
    {"rejected", QT_TRANSLATE_NOOP("keel::StatusWords", "rejected")},
    {"queued", QT_TRANSLATE_NOOP("keel::StatusWords", "queued")},
    {"executed", QT_TRANSLATE_NOOP("keel::StatusWords", "executed")},
    {"expired", QT_TRANSLATE_NOOP("keel::StatusWords", "expired")},
    {"delivered", QT_TRANSLATE_NOOP("keel::StatusWords", "delivered")},
    {"Created", QT_TRANSLATE_NOOP("keel::StatusWords", "Created")},
    {"Authorizing", QT_TRANSLATE_NOOP("keel::StatusWords", "Authorizing")},
    {"Authorized", QT_TRANSLATE_NOOP("keel::StatusWords", "Authorized")},
    {"Failed", QT_TRANSLATE_NOOP("keel::StatusWords", "Failed")},
    {"Capturing", QT_TRANSLATE_NOOP("keel::StatusWords", "Capturing")},
    {"Captured", QT_TRANSLATE_NOOP("keel::StatusWords", "Captured")},
    {"Refunding", QT_TRANSLATE_NOOP("keel::StatusWords", "Refunding")},
    {"Refunded", QT_TRANSLATE_NOOP("keel::StatusWords", "Refunded")},
    {"Reversed", QT_TRANSLATE_NOOP("keel::StatusWords", "Reversed")},
    {"Canceled", QT_TRANSLATE_NOOP("keel::StatusWords", "Canceled")},
    {"applied", QT_TRANSLATE_NOOP("keel::StatusWords", "applied")},
    {"conflicting", QT_TRANSLATE_NOOP("keel::StatusWords", "conflicting")},
    {"amount_mismatch", QT_TRANSLATE_NOOP("keel::StatusWords", "amount mismatch")},
    {"unknown_charge", QT_TRANSLATE_NOOP("keel::StatusWords", "unknown charge")},
}};

} // namespace

QString statusWord(const QString &status)
{
    for (const auto &[value, word] : Words)
        if (status == QLatin1String(value))
            return QCoreApplication::translate("keel::StatusWords", word);
    return status;
}

QStringList knownStatuses()
{
    QStringList values;
    for (const auto &[value, word] : Words)
        values << QString::fromLatin1(value);
    return values;
}

} // namespace keel
