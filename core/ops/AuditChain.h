#pragma once

#include "core/Result.h"

#include <QByteArray>
#include <QString>

#include <memory>
#include <optional>

class QSqlDatabase;

namespace keel {

class LibpqConnection;

// A link of the audit chain as an auditor keeps it outside the database: its
// sequence number and hash. Every link's hash covers every link before it, so
// a chain that still holds this hash at this seq is unchanged up to here.
struct AuditCheckpoint {
    qint64 seq = 0;
    QByteArray hash; // SHA-256, raw bytes; empty for the empty chain

    // One line: "keel-audit-checkpoint seq=N sha256=HEX".
    QString toText() const;
    // Reads what toText() wrote (surrounding whitespace allowed); the error
    // names what is wrong with it.
    static Result<AuditCheckpoint> parse(const QByteArray &text);
};

// Why the chain stops being trustworthy at a link.
enum class AuditBreakKind {
    Missing,            // the seq is absent: a row was deleted
    Relinked,           // prev_hash is not the previous link's hash
    Edited,             // the row's fields do not hash to its hash
    CheckpointMismatch, // the link holds another hash than the checkpoint
    CheckpointMissing,  // the chain ends before the checkpoint's seq
};

struct AuditChainBreak {
    qint64 seq = 0;
    AuditBreakKind kind = AuditBreakKind::Edited;
    // One English sentence naming the link and what is wrong with it.
    QString describe() const;
};

struct AuditChainReport {
    qint64 links = 0;     // links checked before the first break, or all
    AuditCheckpoint head; // the last link checked
    std::optional<AuditChainBreak> firstBreak;
    bool intact() const { return !firstBreak; }
};

// Verifies keel.audit_log the way an outsider would: it recomputes every
// link's hash here, from the row's fields, instead of trusting anything the
// database computed. Needs only SELECT on audit_log (keel_auditor has it).
// Reads through libpq (the CLI) or Qt SQL (the console) with the same checks.
class AuditChain final {
public:
    explicit AuditChain(LibpqConnection &session);
    explicit AuditChain(const QSqlDatabase &db);
    ~AuditChain();
    Q_DISABLE_COPY_MOVE(AuditChain)

    // The newest link, for `keel audit checkpoint`.
    Result<AuditCheckpoint> head();
    // Walks the chain from seq 1 in one snapshot and stops at the first break.
    // With a checkpoint, the link at its seq must also hold its hash.
    Result<AuditChainReport> verify(const std::optional<AuditCheckpoint> &checkpoint = {});

    // The hash the chain trigger gives a row (migration 0001): SHA-256 of the
    // previous hash followed by the fields joined with 0x1f.
    static QByteArray linkHash(const QByteArray &previousHash, const QStringList &fields);

    class Source; // one page of links at a time, inside one snapshot

private:
    Result<AuditChainReport> walk(const std::optional<AuditCheckpoint> &checkpoint);

    std::unique_ptr<Source> m_source;
};

} // namespace keel
