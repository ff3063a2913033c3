#include "SimulateRecord.h"

#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrlQuery>

namespace keel::chaos {
namespace {

struct Exchange {
    QByteArray path;
    QByteArray body;
    int status = 0;
    QByteArray reply;
    qint64 sentMs = 0;
    qint64 answeredMs = 0;
};

// An answer that names the key's one effect: a charge made (200) or declined (402).
bool namesEffect(int status)
{
    return status == 200 || status == 402;
}

QString objectOf(const Exchange &exchange)
{
    Told scratch;
    readAnswer(scratch, exchange.status, exchange.reply);
    return scratch.object;
}

Told::Kind kindOf(const QByteArray &path)
{
    if (path == "/v1/refunds")
        return Told::Kind::Refund;
    if (path == "/v1/sagas")
        return Told::Kind::Saga;
    if (path.endsWith("/capture"))
        return Told::Kind::Capture;
    return Told::Kind::Charge;
}

// One key's exchanges as one request: the body keel took (the one a final
// answer other than 422 was given for; else the first sent), every answer
// to that body as an attempt, the last final one as what the client was told.
Told toldOf(const QByteArray &key, const QList<Exchange> &exchanges, qint64 startedMs,
            SimulateRecord &record)
{
    const Exchange *taken = &exchanges.constFirst();
    for (const Exchange &exchange : exchanges)
        if (isFinalAnswer(exchange.status) && exchange.status != 422) {
            taken = &exchange;
            break;
        }
    Told told;
    told.key = key;
    told.merchant = QStringLiteral("simulate");
    told.kind = kindOf(taken->path);
    told.path = taken->path;
    told.body = taken->body;
    told.json = told.kind == Told::Kind::Saga;
    describeFromBody(told);
    told.firstMs = startedMs + exchanges.constFirst().sentMs;
    QString named;
    for (const Exchange &exchange : exchanges) {
        told.lastMs = startedMs + exchange.answeredMs;
        if (exchange.path != taken->path || exchange.body != taken->body) {
            if (namesEffect(exchange.status)) {
                record.violations.append({QStringLiteral("key %1 was reused for another request "
                                                         "and that one was answered %2 too")
                                              .arg(QString::fromLatin1(key))
                                              .arg(exchange.status),
                                          key});
            } else if (!told.otherBodies.contains(exchange.body)) {
                told.otherBodies << exchange.body;
            }
            continue;
        }
        told.attempts << exchange.status;
        if (!isFinalAnswer(exchange.status))
            continue;
        const QString object = objectOf(exchange);
        if (namesEffect(exchange.status) && !named.isEmpty() && object != named) {
            record.violations.append({QStringLiteral("key %1 was told %2 and later %3")
                                          .arg(QString::fromLatin1(key), named, object),
                                      key});
        }
        if (namesEffect(exchange.status))
            named = object;
        readAnswer(told, exchange.status, exchange.reply);
    }
    return told;
}

} // namespace

void describeFromBody(Told &told)
{
    if (told.kind == Told::Kind::Saga) { // what its charge step takes
        const QJsonArray steps =
            QJsonDocument::fromJson(told.body).object().value(QStringLiteral("steps")).toArray();
        for (const QJsonValue &step : steps)
            if (step[QStringLiteral("kind")].toString() == QLatin1String("charge")) {
                told.amount = step[QStringLiteral("amount")].toInteger();
                told.currency = step[QStringLiteral("currency")].toString().toLower();
            }
        return;
    }
    const QUrlQuery form(QString::fromUtf8(told.body));
    const auto field = [&form](const char *name) {
        return form.queryItemValue(QLatin1String(name), QUrl::FullyDecoded);
    };
    if (told.kind == Told::Kind::Charge) {
        told.amount = field("amount").toLongLong();
        told.currency = field("currency").toLower();
        told.reference = field("out_trade_no");
        told.declinedCard = field("source").contains(QLatin1String("Declined"));
    } else if (told.kind == Told::Kind::Refund) {
        told.target = field("charge");
        told.amount = field("amount").toLongLong(); // 0: the whole charge, filled in later
    } else {
        const QList<QByteArray> parts = told.path.split('/'); // /v1/charges/<id>/capture
        told.target = parts.size() == 5 ? QString::fromLatin1(parts[3]) : QString();
    }
}

SimulateRecord readSimulateRecord(const QString &path, qint64 startedMs)
{
    SimulateRecord record;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        record.violations.append(
            {QStringLiteral("keel simulate left no record at %1").arg(path), {}});
        return record;
    }
    QList<QByteArray> order;
    QHash<QByteArray, QList<Exchange>> byKey;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine().trimmed();
        if (line.isEmpty())
            continue;
        const QJsonObject object = QJsonDocument::fromJson(line).object();
        const QByteArray key = object.value(QStringLiteral("key")).toString().toLatin1();
        if (key.isEmpty()) {
            record.violations.append({QStringLiteral("keel simulate's record has a line it "
                                                     "cannot read: %1")
                                          .arg(QString::fromUtf8(line.left(200))),
                                      {}});
            continue;
        }
        ++record.exchanges;
        if (!byKey.contains(key))
            order << key;
        byKey[key].append({object.value(QStringLiteral("path")).toString().toLatin1(),
                           object.value(QStringLiteral("body")).toString().toUtf8(),
                           object.value(QStringLiteral("status")).toInt(),
                           object.value(QStringLiteral("reply")).toString().toUtf8(),
                           object.value(QStringLiteral("sent_ms")).toInteger(),
                           object.value(QStringLiteral("answered_ms")).toInteger()});
    }
    for (const QByteArray &key : order)
        record.told << toldOf(key, byKey.value(key), startedMs, record);
    // Captures and whole refunds move the charge's amount: read it from the
    // charge's own request.
    QHash<QString, qint64> amountOf;
    for (const Told &told : std::as_const(record.told))
        if (told.kind == Told::Kind::Charge && !told.object.isEmpty())
            amountOf.insert(told.object, told.amount);
    for (Told &told : record.told) {
        if (told.kind == Told::Kind::Capture)
            told.amount = amountOf.value(told.target);
        else if (told.kind == Told::Kind::Refund && told.amount == 0)
            told.amount = amountOf.value(told.target);
    }
    return record;
}

} // namespace keel::chaos
