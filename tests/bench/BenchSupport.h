#pragma once

// What keel's benchmarks share: a durable throwaway server, databases with
// keel's schema, pgbench as the reference, medians and percentiles, and the
// ledger audit every run ends with.

#include "core/db/ConnectionSettings.h"
#include "core/merchant/MerchantStore.h"
#include "devkit/servers/EmbeddedCluster.h"

#include <QByteArrayList>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <QList>

#include <memory>
#include <utility>
#include <vector>

class QCommandLineParser;

namespace keel {
class LibpqConnection;
}

namespace keel::bench {

struct Run {
    double perSecond = 0;
    double p50Ms = 0;
    double p99Ms = 0;
    qint64 count = 0;
};

// Prints "<program>: message" on stderr and exits 1.
[[noreturn]] void die(const QString &message);
double percentile(std::vector<qint64> &micros, double p);
double median(std::vector<double> values);

// A durable server (fsync on) in a fresh /tmp directory: commits cost what
// they cost in production.
struct BenchServer {
    std::unique_ptr<EmbeddedCluster> cluster;
    QString dataDirectory;
    ~BenchServer();
};
std::unique_ptr<BenchServer> startBenchServer();

// A database on the bench server with keel's schema and one merchant whose
// USD ledger accounts exist.
IssuedMerchant prepareDatabase(EmbeddedCluster &cluster, const QString &name);
QString scalarOf(LibpqConnection &session, const QByteArray &sql,
                 const QByteArrayList &params = {});
// Runs a pgbench script with -M prepared for `seconds`; rate and latencies
// from its per-transaction log.
Run pgbench(const ConnectionSettings &db, const QString &script, int clients, int seconds,
            const QStringList &variables);
// Starts `keel <arguments>` (killed if the bench dies) and waits for the
// line starting with `readyPrefix`; returns what follows it.
QString spawnKeel(QProcess &process, const QStringList &arguments, const QString &readyPrefix);
void auditOrDie(const ConnectionSettings &db, const char *what);

// A reference script: the template at `templatePath` with @RESPONSE_BODY_HEX@,
// @RESPONSE_HEADERS_HEX@ (a stored reply keel kept during warm-up) and
// @LOCKED_BY@ filled in, then each of `more` (placeholder -> text, written
// hex-encoded so no ':' reaches pgbench's variable parser); written into
// `directory`, whose path is returned.
QString fillReferenceScript(const QString &templatePath, LibpqConnection &keelSession,
                            const QList<std::pair<QString, QString>> &more,
                            const QString &directory);

// --seconds and --rounds, which every benchmark takes, and reading a positive
// integer option.
void addRoundOptions(QCommandLineParser &parser);
int positiveOption(const QCommandLineParser &parser, const char *name, int fallback);

} // namespace keel::bench
