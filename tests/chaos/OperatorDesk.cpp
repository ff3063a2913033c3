#include "OperatorDesk.h"

#include "core/db/LibpqConnection.h"
#include "core/db/QtSqlConnections.h"
#include "core/ops/ActionDesk.h"
#include "core/ops/CaseDesk.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QVariant>

#include <chrono>

namespace keel::chaos {
namespace {

// A saga of the clients' in a status (bound) that a person would see on the
// console long enough to act on: parked, or waiting for its next attempt (a
// participant failing or refusing), not one finishing this moment.
constexpr char SagaPick[] =
    "SELECT s.public_id, s.version FROM keel.sagas s JOIN keel.merchants m ON m.id = "
    "s.merchant_id WHERE s.status = ? AND m.name IN ('Chaos orders', 'Chaos simulate') "
    "AND (s.status = 'parked' OR s.next_attempt_at > now() + interval '300 milliseconds')";

// A step a person may skip here: any but the charge, whose money the end
// checks hold to the client's record.
constexpr char NotOnTheCharge[] =
    " AND NOT EXISTS (SELECT 1 FROM keel.saga_steps t WHERE t.saga_id = s.id AND "
    "t.step_index = s.current_step AND t.name = 'charge')";

QSqlDatabase connect(const ConnectionSettings &login, const char *name)
{
    Result<QSqlDatabase> db = QtSqlConnections::connect(login, QString::fromLatin1(name));
    return db ? *db : QSqlDatabase();
}

// One random row of `sql` (its columns as text), empty when none.
QStringList randomRow(QSqlDatabase db, const QString &sql, const QVariantList &binds = {})
{
    QSqlQuery query(db);
    query.prepare(sql + QStringLiteral(" ORDER BY random() LIMIT 1"));
    for (const QVariant &value : binds)
        query.addBindValue(value);
    if (!query.exec() || !query.next())
        return {};
    QStringList row;
    for (int column = 0; column < query.record().count(); ++column)
        row << query.value(column).toString();
    return row;
}

} // namespace

OperatorDesk::OperatorDesk(ConnectionSettings superuser, quint64 seed)
    : m_superuser(std::move(superuser)), m_seed(seed)
{}

OperatorDesk::~OperatorDesk()
{
    stop();
}

bool OperatorDesk::prepare(QString *error)
{
    Result<LibpqConnection> admin = LibpqConnection::open(m_superuser);
    if (!admin) {
        *error = admin.error().message;
        return false;
    }
    // Proposals live 15 s here, so some expire while the faults run.
    const Status made =
        admin->exec("CREATE ROLE chaos_maker LOGIN IN ROLE keel_operator, keel_sre; "
                    "CREATE ROLE chaos_checker LOGIN IN ROLE keel_approver; "
                    "UPDATE keel.ops_policy SET proposal_ttl = interval '15 seconds'");
    if (!made) {
        *error = made.error().message;
        return false;
    }
    m_maker = m_superuser;
    m_maker.set(QStringLiteral("user"), QStringLiteral("chaos_maker"));
    m_checker = m_superuser;
    m_checker.set(QStringLiteral("user"), QStringLiteral("chaos_checker"));
    return true;
}

void OperatorDesk::start()
{
    m_stopping = false;
    m_thread = std::thread([this] { run(); });
}

void OperatorDesk::stop()
{
    m_stopping = true;
    if (m_thread.joinable())
        m_thread.join();
}

QMap<QString, qint64> OperatorDesk::tried() const
{
    QMutexLocker locker(&m_lock);
    return m_tried;
}

void OperatorDesk::count(const QString &what)
{
    QMutexLocker locker(&m_lock);
    ++m_tried[what];
}

void OperatorDesk::run()
{
    std::mt19937_64 random(m_seed ^ 0x6f70657261746f72ULL);
    while (!m_stopping) {
        // A database that went away (a restart, a failover) takes the
        // people's connections with it; they connect again next time.
        if (!actOnce(random))
            QtSqlConnections::closeThreadConnections();
        const int pause = std::uniform_int_distribution<int>(150, 600)(random);
        std::this_thread::sleep_for(std::chrono::milliseconds(pause));
    }
    QtSqlConnections::closeThreadConnections();
}

bool OperatorDesk::actOnce(std::mt19937_64 &random)
{
    const QString running = QStringLiteral("running");
    const QString compensating = QStringLiteral("compensating");
    switch (std::uniform_int_distribution<int>(0, 15)(random)) {
    case 0:
        return onSaga(random, QStringLiteral("saga.retry_now"), running);
    case 1:
        return onSaga(random, QStringLiteral("saga.retry_now"), compensating);
    case 2:
        return onSaga(random, QStringLiteral("saga.park"), running);
    case 3:
        return onSaga(random, QStringLiteral("saga.park"), compensating);
    case 4:
    case 5:
        return onSaga(random, QStringLiteral("saga.resume"), QStringLiteral("parked"));
    case 6:
        return onSaga(random, QStringLiteral("saga.force_compensation"), running);
    case 7:
        return onSaga(random, QStringLiteral("saga.skip_step"), running, NotOnTheCharge);
    case 8:
        return onCase(random, QStringLiteral("case.write_off"));
    case 9:
    case 10:
        return adjustCase(random);
    case 11:
        return onCase(random, QStringLiteral("case.take"));
    case 12:
        return raceOnSaga();
    default:
        return resendParked(random);
    }
}

// Proposes `kind` on the one row `target` (id, version) as the maker; the
// proposal, or nothing if the database refused it (counted).
std::optional<ActionRecord> OperatorDesk::propose(QSqlDatabase maker, const QString &kind,
                                                  const QString &type, const QStringList &target,
                                                  const QString &reason, const QJsonObject &payload)
{
    Result<ActionRecord> proposal = ActionDesk(maker).propose({kind,
                                                               type,
                                                               target[0],
                                                               {{target[0], target[1]}},
                                                               reason,
                                                               ActionDesk::newIdempotencyKey(),
                                                               payload});
    if (!proposal) {
        count(kind + QStringLiteral(" refused at proposal"));
        return std::nullopt;
    }
    return *proposal;
}

bool OperatorDesk::onSaga(std::mt19937_64 &random, const QString &kind, const QString &status,
                          const char *condition)
{
    QSqlDatabase maker = connect(m_maker, "chaos-maker");
    const QStringList saga =
        randomRow(maker, QString::fromLatin1(SagaPick) + QString::fromLatin1(condition), {status});
    if (saga.isEmpty())
        return maker.isOpen();
    const std::optional<ActionRecord> proposal =
        propose(maker, kind, QStringLiteral("saga"), saga,
                QStringLiteral("chaos desk: %1 while the faults run").arg(kind));
    if (!proposal)
        return false;
    decide(random, kind, proposal->id, proposal->contentHash);
    return true;
}

bool OperatorDesk::onCase(std::mt19937_64 &random, const QString &kind)
{
    QSqlDatabase maker = connect(m_maker, "chaos-maker");
    const QStringList held = randomRow(
        maker, QStringLiteral("SELECT id, xmin::text FROM keel.suspense_cases WHERE status IN "
                              "('open', 'in_review')"));
    if (held.isEmpty())
        return maker.isOpen();
    if (kind == QLatin1String("case.take")) {
        CaseDesk desk(maker);
        const bool taken =
            desk.take(held[0].toLongLong()).ok() &&
            desk.addNote(held[0].toLongLong(), QStringLiteral("looking into it (chaos desk)"),
                         QStringLiteral("CHAOS-1"))
                .ok();
        count(kind + (taken ? QStringLiteral(" done") : QStringLiteral(" refused")));
        return taken;
    }
    const std::optional<ActionRecord> proposal =
        propose(maker, kind, QStringLiteral("suspense_case"), held,
                QStringLiteral("chaos desk: customer unreachable"));
    if (!proposal)
        return false;
    decide(random, kind, proposal->id, proposal->contentHash);
    return true;
}

// A person settles a case with a journal entry instead of a write-off: what
// the case holds goes to the channel's fees, to an operational loss, back to
// its merchant, or half to the merchant and half to fees. A case without
// money is closed with no postings.
bool OperatorDesk::adjustCase(std::mt19937_64 &random)
{
    QSqlDatabase maker = connect(m_maker, "chaos-maker");
    const QStringList held =
        randomRow(maker, QStringLiteral("SELECT id::text, xmin::text, amount::text, currency, "
                                        "coalesce(merchant_id, 0)::text FROM keel.suspense_cases "
                                        "WHERE status IN ('open', 'in_review')"));
    if (held.isEmpty())
        return maker.isOpen();
    const qint64 amount = held[2].toLongLong();
    const QString merchant =
        QStringLiteral("merchant_payable:%1:%2").arg(held[4], held[3].trimmed());
    const QString fees = QStringLiteral("channel_fees:") + held[3].trimmed();
    const auto posting = [](const QString &account, qint64 minor) {
        return QJsonObject{{QStringLiteral("account"), account},
                           {QStringLiteral("amount"), -minor}};
    };
    QJsonArray postings;
    if (amount > 0) {
        switch (std::uniform_int_distribution<int>(0, 3)(random)) {
        case 0:
            postings << posting(fees, amount);
            break;
        case 1:
            postings << posting(QStringLiteral("operational_loss:") + held[3].trimmed(), amount);
            break;
        case 2:
            postings << posting(merchant, amount);
            break;
        default:
            postings << posting(merchant, amount / 2);
            if (amount - amount / 2 > 0)
                postings << posting(fees, amount - amount / 2);
            if (amount / 2 == 0)
                postings.removeFirst();
        }
    }
    const QString kind = QStringLiteral("case.adjust");
    const std::optional<ActionRecord> proposal =
        propose(maker, kind, QStringLiteral("suspense_case"), held.mid(0, 2),
                QStringLiteral("chaos desk: settled with the channel"),
                {{QStringLiteral("postings"), postings}});
    if (!proposal)
        return false;
    decide(random, kind, proposal->id, proposal->contentHash);
    return true;
}

// Two people propose on the same saga at the version both saw; both are
// approved and executed: at most one may apply.
bool OperatorDesk::raceOnSaga()
{
    QSqlDatabase maker = connect(m_maker, "chaos-maker");
    const QStringList saga =
        randomRow(maker, QString::fromLatin1(SagaPick), {QStringLiteral("running")});
    if (saga.isEmpty())
        return maker.isOpen();
    for (const QString &kind : {QStringLiteral("saga.retry_now"), QStringLiteral("saga.park")}) {
        const std::optional<ActionRecord> proposal =
            propose(maker, kind, QStringLiteral("saga"), saga,
                    QStringLiteral("chaos desk: two people on one saga"));
        if (!proposal)
            return false;
        if (!ActionDesk(connect(m_checker, "chaos-checker"))
                 .approve(proposal->id, proposal->contentHash)
                 .ok())
            return false;
        const bool executed = ActionDesk(maker).execute(proposal->id).ok();
        count(kind + (executed ? QStringLiteral(" raced") : QStringLiteral(" refused")));
    }
    return true;
}

bool OperatorDesk::resendParked(std::mt19937_64 &random)
{
    QSqlDatabase maker = connect(m_maker, "chaos-maker");
    const QStringList parked = randomRow(
        maker, QStringLiteral("SELECT id::text, xmin::text FROM keel.outbox WHERE parked_at IS "
                              "NOT NULL AND resent_at IS NULL"));
    if (parked.isEmpty())
        return maker.isOpen();
    const QString kind = QStringLiteral("outbox.resend");
    const std::optional<ActionRecord> proposal = propose(
        maker, kind, QStringLiteral("outbox"), parked, QStringLiteral("chaos desk: binding fixed"));
    if (!proposal)
        return false;
    decide(random, kind, proposal->id, proposal->contentHash);
    return true;
}

// The checker approves most, rejects some, and lets some expire: approved
// but never executed, or never decided at all.
void OperatorDesk::decide(std::mt19937_64 &random, const QString &kind, qint64 id,
                          const QString &contentHash)
{
    const int roll = std::uniform_int_distribution<int>(0, 99)(random);
    ActionDesk checker(connect(m_checker, "chaos-checker"));
    if (roll >= 95) {
        count(kind + QStringLiteral(" left to expire"));
        return;
    }
    if (roll >= 85) {
        const bool rejected = checker.reject(id, QStringLiteral("not this one (chaos desk)")).ok();
        count(kind + (rejected ? QStringLiteral(" rejected") : QStringLiteral(" refused")));
        return;
    }
    if (!checker.approve(id, contentHash).ok()) {
        count(kind + QStringLiteral(" approval refused"));
        return;
    }
    if (roll >= 75) {
        count(kind + QStringLiteral(" approved, left to expire"));
        return;
    }
    execute(kind, id);
}

// The maker clicks Execute. When the database goes away under the click (a
// restart, a failover) the answer is lost and the action ran or did not; the
// person clicks again once it is back, and it must run exactly once in all.
void OperatorDesk::execute(const QString &kind, qint64 id)
{
    QSqlDatabase maker = connect(m_maker, "chaos-maker");
    if (ActionDesk(maker).execute(id).ok())
        return count(kind + QStringLiteral(" executed"));
    if (QSqlQuery(maker).exec(QStringLiteral("SELECT 1")))
        return count(kind + QStringLiteral(" execution refused"));
    QtSqlConnections::closeThreadConnections();
    for (int tries = 0; tries < 60 && !m_stopping; ++tries) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        QSqlDatabase again = connect(m_maker, "chaos-maker");
        if (!again.isOpen()) {
            QtSqlConnections::closeThreadConnections();
            continue;
        }
        const bool executed = ActionDesk(again).execute(id).ok();
        return count(kind + (executed ? QStringLiteral(" cut off, executed on the second click")
                                      : QStringLiteral(" cut off, refused on the second click")));
    }
    count(kind + QStringLiteral(" cut off, never clicked again"));
}

} // namespace keel::chaos
