#pragma once

#include "core/Result.h"
#include "core/db/ConnectionSettings.h"

#include <QString>

#include <optional>

class QCommandLineParser;

namespace keel {

class ConsoleSettings;

// keel-console's command line, validated: every error names its option.
struct ConsoleOptions {
    QString view = QStringLiteral("overview"); // overview, history or connect
    QString screenshot;                        // a PNG to render, then exit
    qint64 minimumWaitMs = 0;
    bool demo = false;
    QString demoDirectory;
    QString demoChannel; // what the demo's simulator speaks: sim, alipay or wechatpay
    std::optional<ConnectionSettings> database; // --db or KEEL_DB
    std::optional<ConnectionSettings> replica;

    static void declare(QCommandLineParser &parser);
    // Also remembers --lang and --theme in `settings`.
    static Result<ConsoleOptions> read(const QCommandLineParser &parser, ConsoleSettings &settings);
};

} // namespace keel
