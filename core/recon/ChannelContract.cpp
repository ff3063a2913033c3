#include "core/recon/ChannelContract.h"

#include "core/db/LibpqConnection.h"

namespace keel {
namespace {

Error unknownChannel(const QString &channel)
{
    return fieldError(
        QStringLiteral("channel"), QStringLiteral("unknown_channel"),
        QStringLiteral("keel knows no channel \"%1\" (recon_channels)").arg(channel.left(40)));
}

} // namespace

Status setContractedFeeRate(LibpqConnection &session, const QString &channel, qint64 ppm)
{
    if (ppm < 0 || ppm > 1000000)
        return fieldError(QStringLiteral("ppm"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("--ppm must be 0 to 1000000 millionths"));
    Result<PgRows> updated = session.query(
        "UPDATE keel.recon_channels SET fee_rate_ppm = $2 WHERE channel = $1 RETURNING 1",
        {channel.toUtf8(), QByteArray::number(ppm)});
    if (!updated)
        return updated.error();
    if (updated->size() == 0)
        return unknownChannel(channel);
    return {};
}

Result<QString> channelTimeZone(LibpqConnection &session, const QString &channel)
{
    Result<PgRows> zone = session.query(
        "SELECT time_zone FROM keel.recon_channels WHERE channel = $1", {channel.toUtf8()});
    if (!zone)
        return zone.error();
    if (zone->size() == 0)
        return unknownChannel(channel);
    return zone->text(0, 0);
}

} // namespace keel
