#include "core/Chaos.h"

#include <QByteArray>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace keel {
namespace {

struct Target {
    QByteArray name;
    int occurrence = 1; // "name#3": the third time the point is reached
};

Target target()
{
    const QByteArray value = qgetenv("KEEL_CHAOS_EXIT_AT");
    const qsizetype hash = value.indexOf('#');
    if (hash < 0)
        return {value, 1};
    return {value.left(hash), std::max(1, value.mid(hash + 1).toInt())};
}

} // namespace

void chaosPoint(const char *name)
{
    static const Target chosen = target();
    static std::atomic<int> reached{0};
    if (chosen.name.isEmpty() || std::strcmp(chosen.name.constData(), name) != 0)
        return;
    if (reached.fetch_add(1) + 1 >= chosen.occurrence)
        ::_exit(86);
}

} // namespace keel
