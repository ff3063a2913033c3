#include "core/channel/SimulatedChannel.h"

#include "core/db/LibpqConnection.h"
#include "core/db/ThreadConnections.h"

#include <QCryptographicHash>
#include <QRandomGenerator>
#include <QThread>

namespace keel {
namespace {

// Stripe's test tokens that ask for a decline, and the decline code they give.
QString declineCodeForSource(const QString &source)
{
    if (!source.startsWith(QLatin1String("tok_chargeDeclined")))
        return {};
    if (source == QLatin1String("tok_chargeDeclinedInsufficientFunds"))
        return QStringLiteral("insufficient_funds");
    if (source == QLatin1String("tok_chargeDeclinedExpiredCard"))
        return QStringLiteral("expired_card");
    if (source == QLatin1String("tok_chargeDeclinedFraudulent"))
        return QStringLiteral("fraudulent");
    return QStringLiteral("generic_decline");
}

bool chance(double rate)
{
    return rate > 0 && QRandomGenerator::global()->generateDouble() < rate;
}

ChannelResult unavailable()
{
    return {ChannelOutcome::Failed, {}, QStringLiteral("simulated channel unavailable")};
}

ChannelResult recorded(const QString &reference, const QString &operation, const PgRows &rows,
                       QString message)
{
    ChannelResult result{channelOutcomeNamed(QString::fromLatin1(rows.value(0, 0))),
                         rows.text(0, 1),
                         std::move(message),
                         {}};
    if (result.outcome == ChannelOutcome::Approved)
        result.channelReference = SimulatedChannel::ownReference(reference, operation);
    return result;
}

} // namespace

SimulatedChannel::SimulatedChannel(ConnectionSettings settings, SimulatedChannelConfig config)
    : m_settings(std::move(settings)), m_config(config)
{}

ChannelResult SimulatedChannel::execute(const ChannelRequest &request)
{
    if (m_config.latencyMs > 0)
        QThread::msleep(ulong(m_config.latencyMs));
    if (chance(m_config.errorRate))
        return unavailable();

    ChannelResult decided{ChannelOutcome::Approved, {}, {}};
    if (request.operation == QLatin1String("authorize")) {
        QString decline = declineCodeForSource(request.source);
        if (decline.isEmpty() && chance(m_config.declineRate))
            decline = QStringLiteral("generic_decline");
        if (!decline.isEmpty())
            decided = {ChannelOutcome::Declined, decline,
                       QStringLiteral("Your card was declined.")};
    } else if (request.operation == QLatin1String("refund") &&
               (request.source == QLatin1String("tok_refundFails") ||
                chance(m_config.refundFailureRate))) {
        decided = {ChannelOutcome::Declined, QStringLiteral("refund_failed"),
                   QStringLiteral("The network refused the refund.")};
    }
    ChannelResult result = firstAnswer(request, decided);
    if (result.outcome != ChannelOutcome::Failed && chance(m_config.ambiguousRate))
        return {ChannelOutcome::Unknown, {}, QStringLiteral("simulated timeout: answer lost")};
    return result;
}

ChannelResult SimulatedChannel::firstAnswer(const ChannelRequest &request,
                                            const ChannelResult &decided)
{
    const QString &reference = request.reference;
    const QString &operation = request.operation;
    const bool sale = operation == QLatin1String("authorize") && request.capture;
    Result<LibpqConnection *> session = ThreadConnections::get(m_settings);
    if (!session)
        return unavailable();
    // Processing is idempotent per (reference, operation): a repeat returns
    // what the first request got.
    Result<PgRows> rows = (*session)->query(
        "WITH inserted AS (INSERT INTO keel.sim_channel_operations "
        "  (reference, operation, outcome, amount, decline_code, currency, sale) "
        "  VALUES ($1, $2, $3, $4, $5, $6, $7) "
        "  ON CONFLICT (reference, operation) DO NOTHING RETURNING outcome, decline_code) "
        "SELECT outcome, decline_code FROM inserted UNION ALL "
        "SELECT outcome, decline_code FROM keel.sim_channel_operations "
        "WHERE reference = $1 AND operation = $2 LIMIT 1",
        {reference.toUtf8(), operation.toUtf8(), channelOutcomeName(decided.outcome).toUtf8(),
         QByteArray::number(request.amount),
         decided.declineCode.isEmpty() ? QByteArray() : decided.declineCode.toUtf8(),
         request.currency.isEmpty() ? QByteArray() : request.currency.toUtf8(),
         sale ? "true" : "false"});
    if (!rows && !(*session)->healthy()) {
        // The connection broke under the statement, which may have committed
        // before it did: whether the network processed it is not known.
        return {ChannelOutcome::Unknown, {}, QStringLiteral("simulated channel lost its answer")};
    }
    if (!rows)
        return unavailable();
    if (rows->size() == 0) {
        // A twin of this request inserted the row while it ran: the insert
        // waited for the twin to commit and did nothing, but the statement's
        // snapshot predates the twin's row. The network processed the
        // operation, so the answer is the twin's, read afresh; "unavailable"
        // would tell keel it was never processed.
        rows = (*session)->query("SELECT outcome, decline_code FROM keel.sim_channel_operations "
                                 "WHERE reference = $1 AND operation = $2",
                                 {reference.toUtf8(), operation.toUtf8()});
        if (!rows || rows->size() == 0)
            return {
                ChannelOutcome::Unknown, {}, QStringLiteral("simulated channel lost its answer")};
    }
    ChannelResult result = recorded(reference, operation, *rows, decided.message);
    if (result.outcome == ChannelOutcome::Declined && result.message.isEmpty())
        result.message = QStringLiteral("Your card was declined.");
    return result;
}

ChannelResult SimulatedChannel::query(const ChannelRequest &asked)
{
    const QString &reference = asked.reference;
    const QString &operation = asked.operation;
    Result<LibpqConnection *> session = ThreadConnections::get(m_settings);
    if (!session)
        return {ChannelOutcome::Unknown, {}, QStringLiteral("simulated channel unreachable")};
    Result<PgRows> rows =
        (*session)->query("SELECT outcome, decline_code FROM keel.sim_channel_operations "
                          "WHERE reference = $1 AND operation = $2",
                          {reference.toUtf8(), operation.toUtf8()});
    if (!rows)
        return {ChannelOutcome::Unknown, {}, QStringLiteral("simulated channel unreachable")};
    if (rows->size() == 0)
        return {ChannelOutcome::NotFound, {}, QStringLiteral("no such operation")};
    return recorded(reference, operation, *rows, {});
}

ChannelResult SimulatedChannel::close(const ChannelRequest &operation)
{
    if (m_config.latencyMs > 0)
        QThread::msleep(ulong(m_config.latencyMs));
    ChannelRequest closing;
    closing.reference = operation.reference;
    closing.operation = operation.operation;
    closing.capture = false;
    ChannelResult closed = firstAnswer(closing, {ChannelOutcome::Closed, {}, {}});
    // Could not reach its own record: nothing is promised.
    if (closed.outcome == ChannelOutcome::Failed)
        closed.outcome = ChannelOutcome::Unknown;
    return closed;
}

QString SimulatedChannel::ownReference(const QString &reference, const QString &operation)
{
    const QByteArray digest =
        QCryptographicHash::hash((reference + u'/' + operation).toUtf8(), QCryptographicHash::Md5);
    return QStringLiteral("sim_") + QString::fromLatin1(digest.toHex().left(24));
}

ChannelFactory simulatedChannel(SimulatedChannelConfig config)
{
    return [config](const ConnectionSettings &processSettings) -> std::shared_ptr<Channel> {
        ConnectionSettings settings = processSettings;
        settings.set(QStringLiteral("application_name"), QStringLiteral("keel-sim-channel"));
        return std::make_shared<SimulatedChannel>(settings, config);
    };
}

} // namespace keel
