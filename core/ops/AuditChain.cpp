#include "core/ops/AuditChain.h"

#include "core/db/LibpqConnection.h"
#include "core/db/QtSqlConnections.h"

#include <QCryptographicHash>
#include <QRegularExpression>
#include <QSqlQuery>
#include <QStringList>
#include <QVariant>

namespace keel {
namespace {

constexpr int PageSize = 5000;
constexpr char CheckpointTag[] = "keel-audit-checkpoint";

// The fields as the chain trigger renders them: the time in UTC with
// microseconds, the detail as jsonb's own text.
constexpr char LinksSql[] = "SELECT seq, seq::text AS seq_text, to_char(at AT TIME ZONE 'UTC', "
                            "'YYYY-MM-DD\"T\"HH24:MI:SS.US'), "
                            "actor, action, object_type, object_id, detail::text, prev_hash, hash "
                            "FROM keel.audit_log WHERE seq > $1 ORDER BY seq LIMIT $2";
constexpr char HeadSql[] = "SELECT seq, hash FROM keel.audit_log ORDER BY seq DESC LIMIT 1";
constexpr char BeginSnapshotSql[] = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY";
constexpr int HashedFields = 7; // columns 1..7 of LinksSql

struct Link {
    qint64 seq = 0;
    QStringList fields;
    bool hasPrevious = false;
    QByteArray previousHash;
    QByteArray hash;
};

// The first thing wrong with `link` when `previous` (seq 0: none) is sound.
std::optional<AuditBreakKind> flaw(const Link &link, const AuditCheckpoint &previous)
{
    if (link.seq != previous.seq + 1)
        return AuditBreakKind::Missing;
    const bool relinked = previous.seq == 0
                              ? link.hasPrevious
                              : (!link.hasPrevious || link.previousHash != previous.hash);
    if (relinked)
        return AuditBreakKind::Relinked;
    if (AuditChain::linkHash(link.previousHash, link.fields) != link.hash)
        return AuditBreakKind::Edited;
    return std::nullopt;
}

} // namespace

class AuditChain::Source {
public:
    virtual ~Source() = default;
    // Opens and closes the one snapshot a verification reads in.
    virtual Status begin() = 0;
    virtual void end() = 0;
    virtual Result<QList<Link>> links(qint64 afterSeq, int limit) = 0;
    virtual Result<AuditCheckpoint> head() = 0;
};

namespace {

class LibpqSource final : public AuditChain::Source {
public:
    explicit LibpqSource(LibpqConnection &session) : m_session(session) {}
    Status begin() override
    {
        if (Status begun = m_session.exec("BEGIN"); !begun)
            return begun;
        return m_session.exec(BeginSnapshotSql);
    }
    void end() override { (void)m_session.exec("ROLLBACK"); }
    Result<QList<Link>> links(qint64 afterSeq, int limit) override
    {
        Result<PgRows> rows =
            m_session.query(LinksSql, {QByteArray::number(afterSeq), QByteArray::number(limit)});
        if (!rows)
            return rows.error();
        QList<Link> links;
        for (int row = 0; row < rows->size(); ++row) {
            Link link;
            link.seq = rows->toInt64(row, 0);
            for (int column = 1; column <= HashedFields; ++column)
                link.fields << rows->text(row, column);
            link.hasPrevious = !rows->isNull(row, 8);
            link.previousHash = rows->bytea(row, 8);
            link.hash = rows->bytea(row, 9);
            links << link;
        }
        return links;
    }
    Result<AuditCheckpoint> head() override
    {
        Result<PgRows> rows = m_session.query(HeadSql);
        if (!rows)
            return rows.error();
        if (rows->size() == 0)
            return AuditCheckpoint{};
        return AuditCheckpoint{rows->toInt64(0, 0), rows->bytea(0, 1)};
    }

private:
    LibpqConnection &m_session;
};

class QtSqlSource final : public AuditChain::Source {
public:
    explicit QtSqlSource(const QSqlDatabase &db) : m_db(db) {}
    Status begin() override
    {
        QSqlQuery query(m_db);
        if (Status begun = QtSqlConnections::exec(query, QStringLiteral("BEGIN")); !begun)
            return begun;
        return QtSqlConnections::exec(query, QString::fromLatin1(BeginSnapshotSql));
    }
    void end() override
    {
        QSqlQuery query(m_db);
        (void)QtSqlConnections::exec(query, QStringLiteral("ROLLBACK"));
    }
    Result<QList<Link>> links(qint64 afterSeq, int limit) override
    {
        QSqlQuery query(m_db);
        query.setForwardOnly(true);
        query.prepare(QString::fromLatin1(LinksSql)
                          .replace(QLatin1String("$1"), QLatin1String("?"))
                          .replace(QLatin1String("$2"), QLatin1String("?")));
        query.addBindValue(afterSeq);
        query.addBindValue(limit);
        if (Status done = QtSqlConnections::exec(query); !done)
            return done.error();
        QList<Link> links;
        while (query.next()) {
            Link link;
            link.seq = query.value(0).toLongLong();
            for (int column = 1; column <= HashedFields; ++column)
                link.fields << query.value(column).toString();
            link.hasPrevious = !query.value(8).isNull();
            link.previousHash = query.value(8).toByteArray();
            link.hash = query.value(9).toByteArray();
            links << link;
        }
        return links;
    }
    Result<AuditCheckpoint> head() override
    {
        QSqlQuery query(m_db);
        if (Status done = QtSqlConnections::exec(query, QString::fromLatin1(HeadSql)); !done)
            return done.error();
        if (!query.next())
            return AuditCheckpoint{};
        return AuditCheckpoint{query.value(0).toLongLong(), query.value(1).toByteArray()};
    }

private:
    QSqlDatabase m_db;
};

} // namespace

AuditChain::AuditChain(LibpqConnection &session) : m_source(std::make_unique<LibpqSource>(session))
{}

AuditChain::AuditChain(const QSqlDatabase &db) : m_source(std::make_unique<QtSqlSource>(db)) {}

AuditChain::~AuditChain() = default;

QString AuditCheckpoint::toText() const
{
    return QStringLiteral("%1 seq=%2 sha256=%3")
        .arg(QLatin1String(CheckpointTag))
        .arg(seq)
        .arg(QString::fromLatin1(hash.toHex()));
}

Result<AuditCheckpoint> AuditCheckpoint::parse(const QByteArray &text)
{
    static const QRegularExpression form(
        QStringLiteral("^%1 seq=(\\d{1,18}) sha256=([0-9a-f]{64})?$")
            .arg(QLatin1String(CheckpointTag)));
    const QRegularExpressionMatch match = form.match(QString::fromUtf8(text.trimmed()));
    if (!match.hasMatch())
        return makeError(ErrorKind::Usage,
                         QStringLiteral("not a keel audit checkpoint (expected \"%1 seq=N "
                                        "sha256=<64 hex digits>\")")
                             .arg(QLatin1String(CheckpointTag)));
    AuditCheckpoint checkpoint{match.captured(1).toLongLong(),
                               QByteArray::fromHex(match.captured(2).toLatin1())};
    if ((checkpoint.seq == 0) != checkpoint.hash.isEmpty())
        return makeError(ErrorKind::Usage,
                         QStringLiteral("a checkpoint has a hash exactly when its seq is above 0"));
    return checkpoint;
}

QString AuditChainBreak::describe() const
{
    switch (kind) {
    case AuditBreakKind::Missing:
        return QStringLiteral("seq %1 is missing: a link was deleted").arg(seq);
    case AuditBreakKind::Relinked:
        return QStringLiteral("seq %1 does not point at the hash of seq %2: links before it were "
                              "replaced")
            .arg(seq)
            .arg(seq - 1);
    case AuditBreakKind::Edited:
        return QStringLiteral("seq %1 does not match its hash: the row was edited").arg(seq);
    case AuditBreakKind::CheckpointMismatch:
        return QStringLiteral("seq %1 holds another hash than the checkpoint: the chain up to it "
                              "was rewritten")
            .arg(seq);
    case AuditBreakKind::CheckpointMissing:
        return QStringLiteral("the checkpoint's seq %1 is gone: the chain was cut back").arg(seq);
    }
    return {};
}

QByteArray AuditChain::linkHash(const QByteArray &previousHash, const QStringList &fields)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(previousHash);
    hash.addData(fields.join(QChar(0x1f)).toUtf8());
    return hash.result();
}

Result<AuditCheckpoint> AuditChain::head()
{
    return m_source->head();
}

Result<AuditChainReport> AuditChain::verify(const std::optional<AuditCheckpoint> &checkpoint)
{
    // One snapshot, so links written meanwhile neither appear half-way nor
    // look like gaps.
    if (Status begun = m_source->begin(); !begun) {
        m_source->end();
        return begun.error();
    }
    Result<AuditChainReport> report = walk(checkpoint);
    m_source->end();
    return report;
}

Result<AuditChainReport> AuditChain::walk(const std::optional<AuditCheckpoint> &checkpoint)
{
    AuditChainReport report;
    for (;;) {
        Result<QList<Link>> links = m_source->links(report.head.seq, PageSize);
        if (!links)
            return links.error();
        for (const Link &link : *links) {
            if (std::optional<AuditBreakKind> kind = flaw(link, report.head)) {
                const qint64 at = *kind == AuditBreakKind::Missing ? report.head.seq + 1 : link.seq;
                report.firstBreak = AuditChainBreak{at, *kind};
                return report;
            }
            report.head = {link.seq, link.hash};
            ++report.links;
            if (checkpoint && link.seq == checkpoint->seq && link.hash != checkpoint->hash) {
                report.firstBreak = AuditChainBreak{link.seq, AuditBreakKind::CheckpointMismatch};
                return report;
            }
        }
        if (links->size() < PageSize)
            break;
    }
    if (checkpoint && report.head.seq < checkpoint->seq)
        report.firstBreak = AuditChainBreak{checkpoint->seq, AuditBreakKind::CheckpointMissing};
    return report;
}

} // namespace keel
