#include "OperationsSeed.h"

#include "BenchSupport.h"

#include "core/db/LibpqConnection.h"
#include "core/ops/Attention.h"
#include "core/ops/OperationsNow.h"
#include "core/read/OutboxQuery.h"
#include "core/read/SuspenseQuery.h"
#include "core/saga/SagaQuery.h"

#include <QElapsedTimer>
#include <QSqlDatabase>

#include <cstdio>
#include <functional>
#include <vector>

namespace keel {
namespace {

using bench::die;
using bench::median;

QByteArray n(qint64 value)
{
    return QByteArray::number(value);
}

void run(LibpqConnection &session, const QByteArray &sql)
{
    if (Status done = session.exec(sql); !done)
        die(done.error().message);
}

// 1% stuck: half running past their deadline, half compensating with a step
// past the attempt limit; 1% parked, 1% compensated, 1% running and fine,
// the rest succeeded; created over thirty days.
void seedSagas(LibpqConnection &session, qint64 sagas)
{
    run(session,
        "INSERT INTO keel.sagas (kind, public_id, status, current_step, merchant_id, "
        "  business_key, payload, created_at, updated_at, next_attempt_at, finished_at, "
        "  last_error) "
        "SELECT CASE g % 3 WHEN 0 THEN 'order' WHEN 1 THEN 'refund' ELSE 'payout' END, "
        "  'saga_bench' || lpad(g::text, 10, '0'), s.status, "
        "  CASE WHEN s.status = 'succeeded' THEN 1 ELSE 0 END, "
        "  m.ids[1 + g % array_length(m.ids, 1)], 'order-' || g, "
        "  '{\"amount\": 1000, \"currency\": \"USD\"}', s.at, s.at, s.at, "
        "  CASE WHEN s.status IN ('succeeded', 'compensated', 'parked') THEN s.at END, "
        "  CASE WHEN s.status IN ('compensating', 'parked') THEN 'participant answered 503' END "
        "FROM generate_series(1, " +
            n(sagas) +
            ") g CROSS JOIN (SELECT array_agg(id) AS ids FROM keel.merchants) m "
            "CROSS JOIN LATERAL (SELECT CASE g % 200 "
            "    WHEN 0 THEN 'running' WHEN 1 THEN 'compensating' WHEN 2 THEN 'parked' "
            "    WHEN 3 THEN 'parked' WHEN 4 THEN 'compensated' WHEN 5 THEN 'compensated' "
            "    WHEN 6 THEN 'running' WHEN 7 THEN 'running' ELSE 'succeeded' END AS status, "
            "  CASE g % 200 WHEN 0 THEN now() - interval '2 hours' "
            "    WHEN 1 THEN now() - interval '1 minute' WHEN 6 THEN now() - interval '10 seconds' "
            "    WHEN 7 THEN now() - interval '20 seconds' "
            "    ELSE now() - (g % 43200) * interval '1 minute' END AS at) s");
    // Two steps each; the compensating ones' first step is past the limit.
    run(session,
        "INSERT INTO keel.saga_steps (saga_id, step_index, name, status, attempts, "
        "  compensation_attempts, started_at, finished_at, last_error) "
        "SELECT s.id, i, CASE i WHEN 0 THEN 'reserve' ELSE 'capture' END, "
        "  CASE WHEN s.status = 'succeeded' THEN 'succeeded' "
        "       WHEN s.status = 'running' THEN CASE i WHEN 0 THEN 'running' ELSE 'pending' END "
        "       WHEN i = 1 THEN 'failed' ELSE 'compensating' END, "
        "  CASE WHEN s.status = 'compensating' AND i = 0 THEN 9 ELSE 1 END, "
        "  CASE WHEN s.status IN ('compensating', 'parked', 'compensated') AND i = 0 THEN 1 "
        "       ELSE 0 END, "
        "  s.created_at, s.finished_at, s.last_error "
        "FROM keel.sagas s CROSS JOIN generate_series(0, 1) i; ANALYZE keel.sagas; "
        "ANALYZE keel.saga_steps");
}

// Every suspense posting (seedSuspense's) has its case; the rest hold no
// money (unmatched settlement lines). The parked sagas' cases come first;
// a fifth are resolved; open ones were opened over ten days.
void seedCases(LibpqConnection &session, qint64 cases)
{
    run(session,
        "WITH money AS (SELECT t.id AS tx, c.id AS charge, c.currency, c.amount, "
        "    row_number() OVER (ORDER BY t.id) AS r "
        "  FROM keel.ledger_transactions t JOIN keel.charges c ON c.id = t.charge_id "
        "  WHERE t.kind = 'suspense_in'), "
        "parked AS (SELECT id, row_number() OVER (ORDER BY id) AS r FROM keel.sagas "
        "  WHERE status = 'parked') "
        "INSERT INTO keel.suspense_cases (saga_id, charge_id, currency, amount, "
        "  ledger_transaction_id, status, owner, reason, opened_at, resolved_at) "
        "SELECT p.id, m.charge, m.currency, coalesce(m.amount, 0), m.tx, "
        "  CASE WHEN g % 5 = 0 THEN 'resolved' WHEN g % 7 = 0 THEN 'in_review' ELSE 'open' END, "
        "  CASE WHEN g % 7 = 0 THEN 'keel_operator_bench' END, "
        "  CASE WHEN p.id IS NOT NULL THEN 'compensation failed 3 rounds' "
        "       ELSE 'unmatched settlement line ' || g END, "
        "  now() - (g % 14400) * interval '1 minute', "
        "  CASE WHEN g % 5 = 0 THEN now() END "
        "FROM generate_series(1, " +
            n(cases) +
            ") g LEFT JOIN money m ON m.r = g LEFT JOIN parked p ON p.r = g; "
            "ANALYZE keel.suspense_cases");
}

// Published over seven days; a backlog of the last minute; parked rows under
// three errors, as the relay leaves them.
void seedOutbox(LibpqConnection &session, const OperationsScale &scale)
{
    run(session,
        "INSERT INTO keel.outbox (aggregate_type, aggregate_id, event_type, payload, created_at, "
        "  published_at, attempts, next_attempt_at, last_error, parked_at) "
        "SELECT CASE WHEN g % 10 = 0 THEN 'refund' ELSE 'charge' END, 'ch_bench' || (g / 3), "
        "  'charge.succeeded', jsonb_build_object('id', 'ch_bench' || (g / 3), 'amount', 1000 + "
        "  g % 9000, 'currency', 'USD', 'status', 'succeeded', 'merchant', g % 50), o.at, "
        "  CASE WHEN o.kind = 'published' THEN o.at + interval '40 milliseconds' END, "
        "  CASE o.kind WHEN 'parked' THEN 10 WHEN 'published' THEN 1 ELSE 0 END, o.at, "
        "  CASE WHEN o.kind = 'parked' THEN CASE g % 3 WHEN 0 THEN 'returned: no queue is bound' "
        "    WHEN 1 THEN 'broker refused: 406 PRECONDITION_FAILED' "
        "    ELSE 'confirm timed out' END END, "
        "  CASE WHEN o.kind = 'parked' THEN o.at + interval '3 hours' END "
        "FROM generate_series(1, " +
            n(scale.outbox) + ") g CROSS JOIN LATERAL (SELECT CASE WHEN g > " +
            n(scale.outbox - scale.backlog) + " THEN 'pending' WHEN g % " +
            n(scale.outbox / scale.parked) +
            " = 0 THEN 'parked' ELSE 'published' END AS kind, "
            "  CASE WHEN g > " +
            n(scale.outbox - scale.backlog) +
            " THEN now() - interval '1 minute' "
            "  ELSE now() - interval '7 days' + g * (interval '7 days' / " +
            n(scale.outbox) + ") END AS at) o; ANALYZE keel.outbox");
}

double timedMs(const std::function<void()> &work)
{
    QElapsedTimer timer;
    timer.start();
    work();
    return double(timer.nsecsElapsed()) / 1e6;
}

double medianOfFive(const std::function<void()> &work)
{
    std::vector<double> times;
    for (int i = 0; i < 5; ++i)
        times.push_back(timedMs(work));
    return median(times);
}

void printPages(const char *list, double first, qint64 depth, double deep)
{
    std::printf("%-18s first %.2f ms   at depth %lld %.2f ms   ratio %.2f\n", list, first,
                static_cast<long long>(depth), deep, deep / first);
}

template <typename T>
T orDie(Result<T> result, const char *what)
{
    if (!result)
        die(QStringLiteral("%1: %2").arg(QLatin1String(what), result.error().message));
    return std::move(*result);
}

void measureSagaPages(LibpqConnection &session, qint64 depth)
{
    SagaFilter first;
    first.limit = 200;
    const auto page = [&](const SagaFilter &filter) {
        const QList<SagaSummary> rows = orDie(SagaQuery(session).list(filter), "saga list");
        if (rows.size() != 200)
            die(QStringLiteral("a saga page did not come back full"));
        return rows;
    };
    const QList<SagaSummary> top = page(first);
    if (!top.first().stuck)
        die(QStringLiteral("the saga list does not start with the stuck sagas"));
    SagaFilter deep = first;
    deep.limit = 1000;
    for (qint64 walked = 0; walked < depth; walked += 1000)
        deep.after = orDie(SagaQuery(session).list(deep), "saga walk").constLast().cursor();
    deep.limit = 200;
    printPages("sagas list", medianOfFive([&] { page(first); }), depth,
               medianOfFive([&] { page(deep); }));
}

void measureCasePages(QSqlDatabase db, qint64 depth)
{
    SuspenseCaseFilter first;
    first.status = SuspenseCaseFilter::Status::All;
    const auto page = [&](const SuspenseCaseFilter &filter) {
        const QList<SuspenseCaseRow> rows = orDie(SuspenseQuery::queue(db, filter), "cases");
        if (rows.size() != filter.limit)
            die(QStringLiteral("a suspense page did not come back full"));
        return rows;
    };
    SuspenseCaseFilter deep = first;
    deep.limit = 1000;
    for (qint64 walked = 0; walked < depth; walked += 1000)
        deep.after = page(deep).constLast().cursor();
    deep.limit = first.limit;
    printPages("suspense queue", medianOfFive([&] { page(first); }), depth,
               medianOfFive([&] { page(deep); }));
}

void measureParkedPages(QSqlDatabase db, qint64 depth)
{
    const auto page = [&](qint64 after, int limit) {
        const QList<ParkedMessage> rows =
            orDie(OutboxQuery::parked(db, QString(), limit, after), "parked");
        if (rows.size() != limit)
            die(QStringLiteral("a parked page did not come back full"));
        return rows.constLast().id;
    };
    qint64 after = 0;
    for (qint64 walked = 0; walked < depth; walked += 1000)
        after = page(after, 1000);
    printPages("outbox parked", medianOfFive([&] { page(0, 500); }), depth,
               medianOfFive([&] { page(after, 500); }));
}

} // namespace

void seedOperations(LibpqConnection &session, const OperationsScale &scale)
{
    QElapsedTimer timer;
    timer.start();
    seedSagas(session, scale.sagas);
    seedCases(session, scale.cases);
    seedOutbox(session, scale);
    std::fprintf(stderr, "seeded %lld sagas, %lld cases, %lld outbox rows in %.0f s\n",
                 static_cast<long long>(scale.sagas), static_cast<long long>(scale.cases),
                 static_cast<long long>(scale.outbox), double(timer.elapsed()) / 1000.0);
}

void measureOperationLists(LibpqConnection &session, QSqlDatabase db, const OperationsScale &scale)
{
    std::printf("\noperations: %lld sagas (1%% stuck), %lld suspense cases, %lld outbox rows "
                "(%lld parked, %lld waiting); pages of 200 (parked: 500), medians of 5\n",
                static_cast<long long>(scale.sagas), static_cast<long long>(scale.cases),
                static_cast<long long>(scale.outbox), static_cast<long long>(scale.parked),
                static_cast<long long>(scale.backlog));
    measureSagaPages(session, scale.sagas / 2);
    measureCasePages(db, scale.cases / 2);
    measureParkedPages(db, scale.parked / 2);

    // seedOutbox parks every (outbox / parked)th row outside the backlog.
    const qint64 parked = (scale.outbox - scale.backlog) / (scale.outbox / scale.parked);
    AttentionScope all;
    all.sagas = all.outbox = all.notifications = all.cases = all.proposals = true;
    const double summary = medianOfFive([&] {
        const OutboxSummary figures = orDie(OutboxQuery::summary(db), "outbox summary");
        if (figures.backlog != scale.backlog || figures.parkedByError.size() != 3)
            die(QStringLiteral("the outbox summary misses what was seeded"));
    });
    const double now = medianOfFive([&] {
        const OperationsNow figures = orDie(OperationsNow::load(db, all), "operations now");
        if (figures.sagasStuck != scale.sagas / 100)
            die(QStringLiteral("operations now counts %1 stuck sagas, seeded %2")
                    .arg(figures.sagasStuck)
                    .arg(scale.sagas / 100));
    });
    const double headline = medianOfFive([&] {
        const AttentionCounts counts = orDie(Attention::load(db, all), "headline");
        if (counts.parkedMessages != parked || counts.overdueCases <= 0)
            die(QStringLiteral("the headline misses what was seeded"));
    });
    std::printf("refresh            outbox view %.1f ms   operations panel %.1f ms   headline "
                "%.1f ms\n",
                summary, now, headline);
}

} // namespace keel
