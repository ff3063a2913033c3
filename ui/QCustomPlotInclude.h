#pragma once

// qcustomplot.h is written with Qt's lower-case keywords, which keel turns off
// (QT_NO_KEYWORDS); they are mapped for this one include only.
#define signals Q_SIGNALS
#define slots Q_SLOTS
#define emit Q_EMIT
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef foreach
#undef emit
#undef slots
#undef signals
