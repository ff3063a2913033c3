#include "ChaosChecks.h"

#include "core/db/LibpqConnection.h"
#include "core/ledger/Ledger.h"

#include <QHash>
#include <QSet>

namespace keel::chaos {
namespace {

constexpr const char *PaymentsMerchant = "Chaos payments";
constexpr const char *SagasMerchant = "Chaos orders";
constexpr const char *SimulateMerchant = "Chaos simulate";

// The expected payable of one merchant in one currency.
QString payableKey(const QString &merchant, const QString &currency)
{
    return merchant + u' ' + currency;
}

struct StoredRefund {
    QString charge;
    qint64 amount = 0;
    QString status;
};

bool capturesAtOnce(const Told &told)
{
    return !told.body.contains("capture=false");
}

} // namespace

ChaosChecks::ChaosChecks(LibpqConnection &connection, const QList<Told> &record,
                         const QHash<QByteArray, int> &effects, const QString &sagaCurrency)
    : m_connection(connection), m_record(record), m_sagaCurrency(sagaCurrency)
{
    // Summed per path and saga once rather than scanned for every saga: a
    // long run has tens of thousands of each. Keys are path|gid|branch|op.
    for (auto it = effects.cbegin(); it != effects.cend(); ++it) {
        const QByteArray &key = it.key();
        m_effects[key.left(key.indexOf('|', key.indexOf('|') + 1))] += it.value();
    }
}

Verdict ChaosChecks::run()
{
    Verdict verdict;
    readPeoplesDecisions(verdict);
    checkCharges(verdict);
    checkRefunds(verdict);
    checkSagas(verdict);
    checkLedger(verdict);
    checkEvents(verdict);
    checkSettled(verdict);
    return verdict;
}

// What people at the console decided changes what the record implies: a
// step they skipped was never meant to take effect or be undone, and money a
// case adjustment they approved put into a merchant's payable is owed to it.
// Both are read from what was proposed and approved, not from the books the
// checks then judge.
void ChaosChecks::readPeoplesDecisions(Verdict &verdict)
{
    Result<PgRows> skipped =
        m_connection.query("SELECT s.public_id, '/' || t.name FROM keel.saga_steps t "
                           "JOIN keel.sagas s ON s.id = t.saga_id WHERE t.status = 'skipped'");
    if (!skipped)
        return verdict.violation(QStringLiteral("steps unreadable: ") + skipped.error().message);
    for (int i = 0; i < skipped->size(); ++i)
        m_skipped.insert(skipped->text(i, 0) + u'|' + skipped->text(i, 1));
    verdict.counts[QStringLiteral("steps people skipped")] = skipped->size();
    Result<PgRows> adjusted =
        m_connection.query("SELECT m.name, lower(a.currency), sum(-(p ->> 'amount')::bigint) "
                           "FROM keel.operator_actions x "
                           "CROSS JOIN LATERAL jsonb_array_elements(x.payload -> 'postings') p "
                           "JOIN keel.ledger_accounts a ON a.code = p ->> 'account' "
                           "JOIN keel.merchants m ON m.id = a.merchant_id "
                           "WHERE x.kind = 'case.adjust' AND x.status = 'executed' "
                           "  AND x.after -> 0 ->> 'outcome' = 'done' GROUP BY 1, 2");
    if (!adjusted)
        return verdict.violation(QStringLiteral("adjustments unreadable: ") +
                                 adjusted.error().message);
    for (int i = 0; i < adjusted->size(); ++i) {
        const QString merchant = adjusted->text(i, 0);
        const qint64 amount = adjusted->toInt64(i, 2);
        if (merchant == QLatin1String(SagasMerchant) && adjusted->text(i, 1) == m_sagaCurrency)
            m_expectedSagaPayable += amount;
        else
            m_expectedPayable[payableKey(merchant, adjusted->text(i, 1))] += amount;
        verdict.counts[QStringLiteral("adjusted back to payable (minor units)")] += amount;
    }
}

qint64 ChaosChecks::count(const QByteArray &sql, Verdict &verdict)
{
    Result<QString> value = m_connection.scalar(sql);
    if (!value) {
        verdict.violation(QStringLiteral("could not read the result: ") + value.error().message);
        return -1;
    }
    return value->toLongLong();
}

// Every key made at most one charge, every charge a client was told about
// exists, a charge told failed moved no money, and each charge holds exactly
// what the client was told was captured (ambiguous answers settled since).
void ChaosChecks::checkCharges(Verdict &verdict)
{
    QHash<QString, StoredCharge> stored;
    Result<PgRows> rows = m_connection.query(
        "SELECT c.public_id, p.state, c.amount, c.amount_captured, c.amount_refunded, "
        "lower(c.currency), m.name FROM keel.charges c JOIN keel.payment_state p ON p.charge_id = "
        "c.id JOIN keel.merchants m ON m.id = c.merchant_id WHERE m.name IN ($1, $2) AND NOT "
        "(c.metadata ? 'saga')",
        {PaymentsMerchant, SimulateMerchant});
    if (!rows)
        return verdict.violation(QStringLiteral("charges unreadable: ") + rows.error().message);
    for (int i = 0; i < rows->size(); ++i)
        stored.insert(rows->text(i, 0), {rows->text(i, 1), rows->toInt64(i, 2), rows->toInt64(i, 3),
                                         rows->toInt64(i, 4), rows->text(i, 5), rows->text(i, 6)});
    const ChargeClaims claims = claimCharges(stored, verdict);
    for (auto it = stored.cbegin(); it != stored.cend(); ++it) {
        if (!claims.claimedBy.contains(it.key())) {
            verdict.violation(QStringLiteral("charge %1 (%2) was made for no key a client was "
                                             "told about: a second effect")
                                  .arg(it.key(), it->state));
            continue;
        }
        const qint64 expected = claims.expectedCaptured.value(it.key());
        if (it->captured != expected)
            verdict.violation(QStringLiteral("charge %1 has %2 captured; the client was told %3")
                                  .arg(it.key())
                                  .arg(it->captured)
                                  .arg(expected),
                              claims.claimedBy.value(it.key()));
        m_expectedPayable[payableKey(it->merchant, it->currency)] += expected;
    }
    verdict.counts[QStringLiteral("charges stored")] = stored.size();
}

// Matches what each client was told about charges and captures to the
// stored charges: which key each charge belongs to, and what it should hold.
ChaosChecks::ChargeClaims ChaosChecks::claimCharges(const QHash<QString, StoredCharge> &stored,
                                                    Verdict &verdict)
{
    ChargeClaims claims;
    QHash<QString, QByteArray> &claimedBy = claims.claimedBy;
    QHash<QString, qint64> &expectedCaptured = claims.expectedCaptured;
    QHash<QByteArray, QString> referenceOf; // key -> the order number it charged
    for (const Told &told : m_record) {
        if (told.kind != Told::Kind::Charge && told.kind != Told::Kind::Capture)
            continue;
        if (told.status == 0) {
            verdict.violation(QStringLiteral("%1 %2 never got a final answer")
                                  .arg(kindName(told.kind), QString::fromLatin1(told.key)),
                              told.key);
            continue;
        }
        if (told.kind == Told::Kind::Capture) {
            if (told.status == 200 && told.captured) {
                expectedCaptured[told.target] = told.amount;
            } else if (told.status == 200) { // in doubt when answered: settled since
                ++verdict.counts[QStringLiteral("ambiguous captures settled later")];
                expectedCaptured[told.target] = stored.value(told.target).captured;
            }
            continue;
        }
        ++verdict.counts[QStringLiteral("charges answered %1").arg(told.status)];
        if (told.object.isEmpty())
            continue; // refused before a charge existed (a 4xx that names none)
        referenceOf.insert(told.key, told.reference);
        const QByteArray other = claimedBy.value(told.object);
        // The same order sent again under a new key is the same charge.
        const bool sameOrder =
            !told.reference.isEmpty() && referenceOf.value(other) == told.reference;
        if (sameOrder)
            ++verdict.counts[QStringLiteral("orders sent again under a new key")];
        else if (!other.isEmpty())
            verdict.violation(
                QStringLiteral("keys %1 and %2 were both told charge %3")
                    .arg(QString::fromLatin1(other), QString::fromLatin1(told.key), told.object),
                told.key);
        claimedBy.insert(told.object, told.key);
        const auto found = stored.constFind(told.object);
        if (found == stored.cend()) {
            verdict.violation(
                QStringLiteral("key %1 was told about charge %2, which does not exist")
                    .arg(QString::fromLatin1(told.key), told.object),
                told.key);
            continue;
        }
        if (told.status != 200) {
            if (found->captured != 0 || found->state != QLatin1String("Failed"))
                verdict.violation(QStringLiteral("key %1 was told its charge failed (%2) but %3 "
                                                 "is %4 with %5 captured")
                                      .arg(QString::fromLatin1(told.key))
                                      .arg(told.status)
                                      .arg(told.object, found->state)
                                      .arg(found->captured),
                                  told.key);
            continue;
        }
        if (!capturesAtOnce(told))
            continue; // captured later, if at all, by its own request
        if (told.captured) {
            expectedCaptured[told.object] = told.amount;
        } else { // pending, or captured in doubt: explained by the settlement since
            ++verdict.counts[QStringLiteral("ambiguous charges settled later")];
            expectedCaptured[told.object] = found->captured;
        }
    }
    return claims;
}

// Every refund a client was told about exists once; refused ones moved
// nothing; each charge's refunded amount is what its clients were told.
void ChaosChecks::checkRefunds(Verdict &verdict)
{
    QHash<QString, StoredRefund> stored;
    Result<PgRows> rows = m_connection.query(
        "SELECT r.public_id, c.public_id, r.amount, r.status, lower(c.currency), m.name FROM "
        "keel.refunds r JOIN keel.charges c ON c.id = r.charge_id JOIN keel.merchants m ON m.id = "
        "c.merchant_id WHERE m.name IN ($1, $2) AND NOT (c.metadata ? 'saga')",
        {PaymentsMerchant, SimulateMerchant});
    if (!rows)
        return verdict.violation(QStringLiteral("refunds unreadable: ") + rows.error().message);
    QHash<QString, QString> payableOf; // charge -> whose payable its refunds reduce
    for (int i = 0; i < rows->size(); ++i) {
        stored.insert(rows->text(i, 0), {rows->text(i, 1), rows->toInt64(i, 2), rows->text(i, 3)});
        payableOf.insert(rows->text(i, 1), payableKey(rows->text(i, 5), rows->text(i, 4)));
    }
    QSet<QString> claimed;
    QHash<QString, qint64> expectedRefunded;
    for (const Told &told : m_record) {
        if (told.kind != Told::Kind::Refund)
            continue;
        if (told.status == 0) {
            verdict.violation(QStringLiteral("refund %1 never got a final answer")
                                  .arg(QString::fromLatin1(told.key)),
                              told.key);
            continue;
        }
        ++verdict.counts[QStringLiteral("refunds answered %1").arg(told.status)];
        if (told.status != 200)
            continue;
        const auto found = stored.constFind(told.object);
        if (found == stored.cend() || claimed.contains(told.object)) {
            verdict.violation(QStringLiteral("key %1 was told about refund %2: %3")
                                  .arg(QString::fromLatin1(told.key), told.object,
                                       found == stored.cend()
                                           ? QStringLiteral("it does not exist")
                                           : QStringLiteral("so was another key")),
                              told.key);
            continue;
        }
        claimed.insert(told.object);
        if (found->amount != told.amount || found->charge != told.target)
            verdict.violation(QStringLiteral("refund %1 is not what key %2 asked for")
                                  .arg(told.object, QString::fromLatin1(told.key)),
                              told.key);
        if (told.state == QLatin1String("succeeded") && found->status != told.state)
            verdict.violation(QStringLiteral("refund %1 was told succeeded but is %2")
                                  .arg(told.object, found->status),
                              told.key);
        if (told.state == QLatin1String("pending"))
            ++verdict.counts[QStringLiteral("ambiguous refunds settled later")];
        if (found->status == QLatin1String("succeeded"))
            expectedRefunded[told.target] += told.amount;
    }
    for (auto it = stored.cbegin(); it != stored.cend(); ++it)
        if (!claimed.contains(it.key()))
            verdict.violation(QStringLiteral("refund %1 (%2) was made for no key a client was "
                                             "told about: a second effect")
                                  .arg(it.key(), it->status));
    compareRefunded(expectedRefunded, payableOf, verdict);
    verdict.counts[QStringLiteral("refunds stored")] = stored.size();
}

// Each charge's refunded amount against the refunds its clients were told
// succeeded; the merchant's expected payable loses them.
void ChaosChecks::compareRefunded(const QHash<QString, qint64> &expectedRefunded,
                                  const QHash<QString, QString> &payableOf, Verdict &verdict)
{
    Result<PgRows> charges = m_connection.query(
        "SELECT c.public_id, c.amount_refunded FROM keel.charges c JOIN keel.merchants m ON "
        "m.id = c.merchant_id WHERE m.name IN ($1, $2) AND c.amount_refunded > 0 AND NOT "
        "(c.metadata ? 'saga')",
        {PaymentsMerchant, SimulateMerchant});
    if (!charges)
        return verdict.violation(QStringLiteral("charges unreadable: ") + charges.error().message);
    QSet<QString> seen;
    for (int i = 0; i < charges->size(); ++i) {
        const QString charge = charges->text(i, 0);
        seen.insert(charge);
        if (charges->toInt64(i, 1) != expectedRefunded.value(charge))
            verdict.violation(QStringLiteral("charge %1 has %2 refunded; its clients were told %3")
                                  .arg(charge)
                                  .arg(charges->toInt64(i, 1))
                                  .arg(expectedRefunded.value(charge)));
    }
    for (auto it = expectedRefunded.cbegin(); it != expectedRefunded.cend(); ++it) {
        if (!seen.contains(it.key()) && it.value() != 0)
            verdict.violation(QStringLiteral("charge %1 has nothing refunded; its clients were "
                                             "told %2")
                                  .arg(it.key())
                                  .arg(it.value()));
        m_expectedPayable[payableOf.value(it.key())] -= it.value();
    }
}

// Every saga a client started exists once and is terminal, or parked with
// exactly one open suspense case.
void ChaosChecks::checkSagas(Verdict &verdict)
{
    Result<PgRows> rows = m_connection.query(
        "SELECT s.public_id, s.status, (SELECT count(*) FROM keel.suspense_cases c WHERE "
        "c.saga_id = s.id AND c.status IN ('open', 'in_review')), m.name FROM keel.sagas s "
        "JOIN keel.merchants m ON m.id = "
        "s.merchant_id WHERE m.name IN ($1, $2)",
        {SagasMerchant, SimulateMerchant});
    if (!rows)
        return verdict.violation(QStringLiteral("sagas unreadable: ") + rows.error().message);
    struct StoredSaga {
        QString status;
        qint64 suspenseCases = 0;
        QString merchant;
    };
    QHash<QString, StoredSaga> stored;
    for (int i = 0; i < rows->size(); ++i)
        stored.insert(rows->text(i, 0), {rows->text(i, 1), rows->toInt64(i, 2), rows->text(i, 3)});
    QSet<QString> claimed;
    for (const Told &told : m_record) {
        if (told.kind != Told::Kind::Saga)
            continue;
        if (told.status != 200) {
            verdict.violation(QStringLiteral("saga %1 was never started (last answer %2)")
                                  .arg(QString::fromLatin1(told.key))
                                  .arg(told.status),
                              told.key);
            continue;
        }
        const auto found = stored.constFind(told.object);
        if (found == stored.cend() || claimed.contains(told.object)) {
            verdict.violation(QStringLiteral("key %1 was told about saga %2, which %3")
                                  .arg(QString::fromLatin1(told.key), told.object,
                                       found == stored.cend() ? QStringLiteral("does not exist")
                                                              : QStringLiteral("another key has")),
                              told.key);
            continue;
        }
        claimed.insert(told.object);
        const QString status = found->status;
        ++verdict.counts[QStringLiteral("sagas %1").arg(status)];
        // keel simulate's sagas charge its own merchant, beside its other charges.
        if (status == QLatin1String("succeeded") && found->merchant == QLatin1String(SagasMerchant))
            m_expectedSagaPayable += told.amount;
        else if (status == QLatin1String("succeeded"))
            m_expectedPayable[payableKey(found->merchant, told.currency)] += told.amount;
        // Resolved: a person adjusted or wrote off its case; the money is where
        // the resolution put it (suspense emptied, the payable untouched).
        const bool terminal = status == QLatin1String("succeeded") ||
                              status == QLatin1String("compensated") ||
                              status == QLatin1String("resolved");
        if (!terminal && !(status == QLatin1String("parked") && found->suspenseCases == 1))
            verdict.violation(QStringLiteral("saga %1 is %2 with %3 suspense cases")
                                  .arg(told.object, status)
                                  .arg(found->suspenseCases),
                              told.key);
        else if (terminal && found->suspenseCases != 0)
            verdict.violation(
                QStringLiteral("saga %1 is %2 but has a suspense case").arg(told.object, status),
                told.key);
        checkSagaEffects(told.object, status, told.key, verdict);
    }
    for (auto it = stored.cbegin(); it != stored.cend(); ++it)
        if (!claimed.contains(it.key()))
            verdict.violation(
                QStringLiteral("saga %1 was started for no key a client was told about")
                    .arg(it.key()));
}

// What the saga's participant did matches its outcome: a succeeded saga's
// actions all took effect and none was undone; a compensated saga undid
// every action that took effect. A step told it succeeded when its
// participant never acted (an answer read from another call) shows here.
void ChaosChecks::checkSagaEffects(const QString &saga, const QString &status,
                                   const QByteArray &key, Verdict &verdict)
{
    static const std::pair<const char *, const char *> undoable[] = {{"/reserve", "/release"},
                                                                     {"/confirm", "/unconfirm"}};
    const auto skipped = [&](const char *action) {
        return m_skipped.contains(saga + u'|' + QLatin1String(action));
    };
    if (status == QLatin1String("succeeded")) {
        for (const char *action : {"/reserve", "/confirm", "/notify"})
            if (!skipped(action) && effects(action, saga) != 1)
                verdict.violation(QStringLiteral("saga %1 succeeded but %2 took effect %3 times")
                                      .arg(saga, QLatin1String(action))
                                      .arg(effects(action, saga)),
                                  key);
        for (const auto &[action, undo] : undoable)
            if (!skipped(action) && effects(undo, saga) != 0)
                verdict.violation(QStringLiteral("saga %1 succeeded but %2 was undone")
                                      .arg(saga, QLatin1String(action)),
                                  key);
    } else if (status == QLatin1String("compensated")) {
        for (const auto &[action, undo] : undoable)
            if (!skipped(action) && effects(action, saga) > 0 && effects(undo, saga) == 0)
                verdict.violation(QStringLiteral("saga %1 was compensated but %2 was never undone")
                                      .arg(saga, QLatin1String(action)),
                                  key);
    }
}

int ChaosChecks::effects(const char *path, const QString &saga) const
{
    return m_effects.value(QByteArray(path) + '|' + saga.toUtf8());
}

// The books balance, and each merchant's payable account holds what the
// clients' record says it should.
void ChaosChecks::checkLedger(Verdict &verdict)
{
    Result<Ledger::AuditReport> audit = Ledger::audit(m_connection);
    if (!audit)
        return verdict.violation(QStringLiteral("ledger audit failed: ") + audit.error().message);
    for (const QString &line : audit->violations)
        verdict.violation(QStringLiteral("ledger: ") + line);
    verdict.counts[QStringLiteral("ledger transactions")] = audit->transactions;
    Result<PgRows> rows = m_connection.query(
        "SELECT m.name, lower(a.currency), -coalesce(sum(e.amount), 0) FROM keel.ledger_accounts a "
        "JOIN keel.merchants m ON a.code LIKE 'merchant_payable:' || m.id || ':%' LEFT JOIN "
        "keel.ledger_entries e ON e.account_id = a.id GROUP BY 1, 2");
    if (!rows)
        return verdict.violation(QStringLiteral("accounts unreadable: ") + rows.error().message);
    QMap<QString, qint64> payable;
    qint64 sagaPayable = 0;
    for (int i = 0; i < rows->size(); ++i) {
        const QString merchant = rows->text(i, 0);
        if (merchant == QLatin1String(PaymentsMerchant) ||
            merchant == QLatin1String(SimulateMerchant))
            payable[payableKey(merchant, rows->text(i, 1))] = rows->toInt64(i, 2);
        else if (merchant == QLatin1String(SagasMerchant) && rows->text(i, 1) == m_sagaCurrency)
            sagaPayable = rows->toInt64(i, 2);
    }
    for (const QString &account :
         QSet<QString>(payable.keyBegin(), payable.keyEnd()) +
             QSet<QString>(m_expectedPayable.keyBegin(), m_expectedPayable.keyEnd()))
        if (payable.value(account) != m_expectedPayable.value(account))
            verdict.violation(QStringLiteral("%1 payable is %2; from the clients' record it "
                                             "should be %3")
                                  .arg(account)
                                  .arg(payable.value(account))
                                  .arg(m_expectedPayable.value(account)));
    if (sagaPayable != m_expectedSagaPayable)
        verdict.violation(QStringLiteral("the order merchant's %1 payable is %2; from its "
                                         "succeeded sagas it should be %3")
                              .arg(m_sagaCurrency)
                              .arg(sagaPayable)
                              .arg(m_expectedSagaPayable));
}

// Every committed outbox row reached the broker and was applied exactly once
// by the inbox consumer; every merchant notification was delivered or parked.
void ChaosChecks::checkEvents(Verdict &verdict)
{
    verdict.counts[QStringLiteral("events committed")] =
        count("SELECT count(*) FROM chaos.committed_events", verdict);
    const qint64 missing =
        count("SELECT count(*) FROM chaos.committed_events e WHERE NOT EXISTS (SELECT 1 FROM "
              "chaos.applied_events a WHERE a.message_id = 'keel-outbox-' || e.outbox_id)",
              verdict);
    if (missing != 0)
        verdict.violation(
            QStringLiteral("%1 committed events never reached the consumer").arg(missing));
    const qint64 twice = count("SELECT count(*) FROM (SELECT message_id FROM chaos.applied_events "
                               "GROUP BY 1 HAVING count(*) > 1) t",
                               verdict);
    if (twice != 0)
        verdict.violation(QStringLiteral("%1 events were applied more than once").arg(twice));
    const qint64 parked =
        count("SELECT count(*) FROM keel.outbox WHERE parked_at IS NOT NULL", verdict);
    if (parked != 0)
        verdict.violation(QStringLiteral("%1 outbox rows are parked").arg(parked));
    verdict.counts[QStringLiteral("notifications delivered")] =
        count("SELECT count(*) FROM keel.notifications WHERE status = 'delivered'", verdict);
    verdict.counts[QStringLiteral("notifications parked")] =
        count("SELECT count(*) FROM keel.notifications WHERE status = 'parked'", verdict);
    const qint64 pending =
        count("SELECT count(*) FROM keel.notifications WHERE status = 'pending'", verdict);
    if (pending != 0)
        verdict.violation(
            QStringLiteral("%1 notifications neither delivered nor parked").arg(pending));
}

// No payment is left in doubt: the reconciler settled every one.
void ChaosChecks::checkSettled(Verdict &verdict)
{
    const qint64 inDoubt = count("SELECT count(*) FROM keel.payment_state WHERE state IN "
                                 "('Created', 'Authorizing', 'Capturing', 'Refunding')",
                                 verdict);
    if (inDoubt != 0)
        verdict.violation(QStringLiteral("%1 payments are still in doubt").arg(inDoubt));
}

} // namespace keel::chaos
