#include "core/ops/ActionReview.h"

#include "core/db/BoundQuery.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlQuery>
#include <QVariant>

namespace keel {
namespace {

Result<QList<ActionTarget>> frozenTargets(QSqlDatabase db, qint64 actionId)
{
    QSqlQuery query(db);
    if (Status done = runBound(query,
                               QStringLiteral("SELECT t ->> 'id', t ->> 'version' FROM "
                                              "keel.operator_actions a, jsonb_array_elements("
                                              "a.targets) WITH ORDINALITY AS x(t, n) WHERE a.id = "
                                              "? ORDER BY n"),
                               {actionId});
        !done)
        return done.error();
    QList<ActionTarget> targets;
    while (query.next())
        targets << ActionTarget{query.value(0).toString(), query.value(1).toString()};
    return targets;
}

// The account a give-back credits, as keel.give_back_account() names it.
QString giveBackAccount(const QJsonObject &payload, const QString &currency, qint64 merchantId)
{
    const QString to = payload.value(QStringLiteral("to")).toString();
    if (to == QLatin1String("merchant"))
        return QStringLiteral("merchant_payable:%1:%2").arg(merchantId).arg(currency);
    return QStringLiteral("operational_loss:") + currency;
}

// The lines a case resolution posts, as keel.execute_case_resolution() and
// keel.execute_give_back() make them: the suspense leg that takes out what
// the case holds, and the proposal's counter-postings, the write-off
// account's or the give-back's.
QList<PostingPreview> resolutionLines(const QString &kind, const QString &payload,
                                      const QString &currency, qint64 held, qint64 merchantId)
{
    // `held` is what the case leaves in suspense in its credit terms: below
    // 0 for money the channel owes (migration 0050), which its resolution
    // credits back to suspense.
    QList<PostingPreview> lines;
    if (held == 0)
        return lines;
    lines << PostingPreview{QStringLiteral("suspense:") + currency, held, 0, 0};
    if (kind == QLatin1String("case.write_off")) {
        lines << PostingPreview{QStringLiteral("suspense_write_off:") + currency, -held, 0, 0};
        return lines;
    }
    const QJsonObject fields = QJsonDocument::fromJson(payload.toUtf8()).object();
    if (kind == QLatin1String("case.give_back")) {
        lines << PostingPreview{giveBackAccount(fields, currency, merchantId), -held, 0, 0};
        return lines;
    }
    const QJsonArray postings = fields.value(QStringLiteral("postings")).toArray();
    for (const QJsonValue &posting : postings)
        lines << PostingPreview{posting.toObject().value(QStringLiteral("account")).toString(),
                                posting.toObject().value(QStringLiteral("amount")).toInteger(), 0,
                                0};
    return lines;
}

Status addBalances(QSqlDatabase db, QList<PostingPreview> &lines)
{
    for (PostingPreview &line : lines) {
        QSqlQuery query(db);
        if (Status done = runBound(
                query,
                QStringLiteral(
                    "SELECT coalesce(sum(e.amount), 0)::bigint FROM keel.ledger_accounts "
                    "a JOIN keel.ledger_entries e ON e.account_id = a.id WHERE a.code = ?"),
                {line.account});
            !done)
            return done;
        line.balanceBefore = query.next() ? query.value(0).toLongLong() : 0;
        line.balanceAfter = line.balanceBefore + line.amount;
    }
    return {};
}

} // namespace

Result<ActionReview> ActionReviews::load(QSqlDatabase db, qint64 actionId)
{
    Result<ActionRecord> record = ActionDesk(db).find(actionId);
    if (!record)
        return record.error();
    ActionReview review;
    review.record = *record;
    Result<QList<ActionTarget>> targets = frozenTargets(db, actionId);
    if (!targets)
        return targets.error();
    review.targets = *targets;
    if (review.record.targetType != QLatin1String("suspense_case") || review.targets.size() != 1)
        return review;
    QSqlQuery held(db);
    if (Status done = runBound(held,
                               QStringLiteral("SELECT coalesce(k.currency, ''), k.in_suspense, "
                                              "coalesce(c.exponent, 2), "
                                              "coalesce(k.merchant_id, 0) "
                                              "FROM keel.suspense_cases k "
                                              "LEFT JOIN keel.currencies c ON c.code = k.currency "
                                              "WHERE k.id = ?"),
                               {review.targets.first().id.toLongLong()});
        !done)
        return done.error();
    if (!held.next())
        return review;
    review.currency = held.value(0).toString();
    review.exponent = held.value(2).toInt();
    review.postings = resolutionLines(review.record.kind, review.record.payload, review.currency,
                                      held.value(1).toLongLong(), held.value(3).toLongLong());
    if (Status balanced = addBalances(db, review.postings); !balanced)
        return balanced.error();
    return review;
}

} // namespace keel
