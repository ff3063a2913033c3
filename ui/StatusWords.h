#pragma once

#include <QStringList>

namespace keel {

// The words the console shows for the database's status values (sagas,
// their steps, suspense cases, proposals, payment states), translated; an
// unknown value is shown as the database has it.
QString statusWord(const QString &status);
// Every value statusWord() knows.
QStringList knownStatuses();

} // namespace keel
