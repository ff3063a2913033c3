#pragma once

#include "ChaosRecord.h"

#include <QHash>
#include <QMap>
#include <QSet>
#include <QStringList>

namespace keel {
class LibpqConnection;
}

namespace keel::chaos {

// What the end of a run showed: figures to print and the violations found.
struct Verdict {
    QMap<QString, qint64> counts; // printed in key order
    QStringList violations;
    QList<QByteArray> violatingKeys; // for the smallest history that shows each

    void violation(const QString &what, const QByteArray &key = {})
    {
        violations << what;
        if (!key.isEmpty())
            violatingKeys << key;
    }
};

// Judges keel's database against what the clients were told. The database is
// read with a superuser connection after every process has recovered.
class ChaosChecks final {
public:
    // `effects`: the participant's record, path|gid|branch|op -> 1 for every
    // operation that took effect.
    // `sagaCurrency`: what the order sagas charge in (lower case).
    ChaosChecks(LibpqConnection &connection, const QList<Told> &record,
                const QHash<QByteArray, int> &effects,
                const QString &sagaCurrency = QStringLiteral("usd"));

    Verdict run();

private:
    struct StoredCharge {
        QString state;
        qint64 amount = 0;
        qint64 captured = 0;
        qint64 refunded = 0;
        QString currency;
        QString merchant;
    };
    struct ChargeClaims {
        QHash<QString, QByteArray> claimedBy;    // charge -> the key told about it
        QHash<QString, qint64> expectedCaptured; // charge -> what it should hold
    };

    void readPeoplesDecisions(Verdict &verdict);
    void checkCharges(Verdict &verdict);
    ChargeClaims claimCharges(const QHash<QString, StoredCharge> &stored, Verdict &verdict);
    void compareRefunded(const QHash<QString, qint64> &expectedRefunded,
                         const QHash<QString, QString> &payableOf, Verdict &verdict);
    void checkRefunds(Verdict &verdict);
    void checkSagas(Verdict &verdict);
    void checkSagaEffects(const QString &saga, const QString &status, const QByteArray &key,
                          Verdict &verdict);
    int effects(const char *path, const QString &saga) const;
    void checkLedger(Verdict &verdict);
    void checkEvents(Verdict &verdict);
    void checkSettled(Verdict &verdict);
    qint64 count(const QByteArray &sql, Verdict &verdict);

    LibpqConnection &m_connection;
    const QList<Told> &m_record;
    QHash<QByteArray, int> m_effects;        // path|gid -> effects of all its branches and ops
    QMap<QString, qint64> m_expectedPayable; // "merchant currency" -> from the record
    qint64 m_expectedSagaPayable = 0;
    QString m_sagaCurrency;
    QSet<QString> m_skipped; // saga|/step for the steps a person skipped
};

} // namespace keel::chaos
