#pragma once

#include "GatewayTest.h"
#include "KeelProcess.h"
#include "core/channel/SimulatedChannel.h"
#include "core/db/QtSqlConnections.h"
#include "core/ops/ActionDesk.h"
#include "core/payment/Channel.h"
#include "core/read/ReconQuery.h"
#include "core/read/SuspenseQuery.h"

#include <QDate>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QSqlDatabase>
#include <QTemporaryDir>

namespace keel::test {

// Statements are imported and days reconciled by a scheduled service, as the
// keel_gateway login the gateway's charges and refunds also went through.
// People read the results and write none of them.
class ReconciliationTest : public GatewayTest {
protected:
    void SetUp() override
    {
        GatewayTest::SetUp();
        ASSERT_FALSE(HasFatalFailure());
        ASSERT_TRUE(m_files.isValid());
        m_service = m_serviceLogin.conninfo();
    }

    QByteArray charge(const QByteArray &form, const QByteArray &key)
    {
        const HttpReply reply = post("/v1/charges", form + "&source=tok_visa", key);
        EXPECT_EQ(reply.status, 200) << reply.body.constData();
        return QJsonDocument::fromJson(reply.body)
            .object()
            .value(QStringLiteral("id"))
            .toString()
            .toUtf8();
    }

    // A refund through the gateway; its id.
    QByteArray refund(const QByteArray &form, const QByteArray &key)
    {
        const HttpReply reply = post("/v1/refunds", form, key);
        EXPECT_EQ(reply.status, 200) << reply.body.constData();
        return QJsonDocument::fromJson(reply.body)
            .object()
            .value(QStringLiteral("id"))
            .toString()
            .toUtf8();
    }

    // The gateway's channel: the simulated network under another channel's
    // label (LabelledChannel, below), so that what goes through it is that
    // channel's to reconcile.
    void labelChannel(const QString &name, const QString &statementChannel);

    // A file of the test's: `lines` after `header`, %1 the business day and
    // %2 the day after it.
    QString file(const QString &name, const QByteArray &header, const QStringList &lines)
    {
        QByteArray text = header;
        const QString nextDay =
            QDate::fromString(m_day, Qt::ISODate).addDays(1).toString(Qt::ISODate);
        for (const QString &line : lines)
            text += QString(line)
                        .replace(QLatin1String("%1"), m_day)
                        .replace(QLatin1String("%2"), nextDay)
                        .toUtf8() +
                    "\r\n";
        const QString path = m_files.filePath(name);
        QFile out(path);
        EXPECT_TRUE(out.open(QIODevice::WriteOnly));
        out.write(text);
        return path;
    }

    // A statement in keel's CSV form.
    // One $10 payment, its day, and the channel's statement reporting it, imported.
    void reportOnePayment(const QByteArray &key)
    {
        const QByteArray paid = charge("amount=1000&currency=usd", key);
        m_day = firstPostingDay();
        ASSERT_EQ(import(statement(QStringLiteral("a.csv"),
                                   {QString::fromUtf8(paid) +
                                    QStringLiteral(",S1,payment,10.00,USD,0.30,%1T12:00:00Z")}))
                      .exitCode,
                  0);
    }

    QString statement(const QString &name, const QStringList &lines)
    {
        return file(name, "reference,channel_reference,type,amount,currency,fee,occurred_at\n",
                    lines);
    }

    ProcessResult recon(const QStringList &arguments, const QString &login = {})
    {
        return runKeel(QStringList{QStringLiteral("recon")} + arguments +
                       QStringList{QStringLiteral("--db"), login.isEmpty() ? m_service : login});
    }

    ProcessResult import(const QString &path, const QString &login = {})
    {
        return recon({QStringLiteral("import"), QStringLiteral("--channel"), QStringLiteral("sim"),
                      QStringLiteral("--format"), QStringLiteral("csv"), path},
                     login);
    }

    QJsonObject run(const QString &channel = QStringLiteral("sim"), QString day = {})
    {
        const ProcessResult result = recon({QStringLiteral("run"), QStringLiteral("--channel"),
                                            channel, QStringLiteral("--date"),
                                            day.isEmpty() ? m_day : day, QStringLiteral("--json")});
        EXPECT_EQ(result.exitCode, 0) << qPrintable(result.err);
        return QJsonDocument::fromJson(result.out.toUtf8()).object();
    }

    // Moves the books three days back, so that their day's settlement lag is
    // over; the postings moved, as text. Postings are immutable to every
    // role, so the superuser moves them with triggers off.
    QString backdateBooks()
    {
        return scalar("SET session_replication_role = replica; "
                      "WITH moved AS (UPDATE keel.ledger_transactions "
                      "SET created_at = created_at - interval '3 days' RETURNING 1) "
                      "SELECT count(*) FROM moved");
    }

    // The business day, in `zone`, on which the test's first money moved.
    QString firstPostingDay(const char *zone = "UTC")
    {
        return scalar("SELECT (min(created_at) AT TIME ZONE '" + QByteArray(zone) +
                      "')::date FROM keel.ledger_transactions");
    }

    // What the suspense account holds, as text.
    QString suspense()
    {
        return scalar("SELECT coalesce(-sum(e.amount), 0) FROM keel.ledger_entries e "
                      "JOIN keel.ledger_accounts a ON a.id = e.account_id "
                      "WHERE a.kind = 'suspense'");
    }

    QString balance(const QByteArray &account)
    {
        return scalar("SELECT coalesce(sum(e.amount), 0) FROM keel.ledger_entries e "
                      "JOIN keel.ledger_accounts a ON a.id = e.account_id WHERE a.code = '" +
                      account + "'");
    }

    // `keel audit ledger`, as the service login, finds the books whole.
    void expectBooksAgree()
    {
        const ProcessResult audit = runKeel(
            {QStringLiteral("audit"), QStringLiteral("ledger"), QStringLiteral("--db"), m_service});
        EXPECT_EQ(audit.exitCode, 0) << qPrintable(audit.err) << qPrintable(audit.out);
    }

    // "class:reference:status" of each break, with its amounts kept apart.
    static QStringList breaks(const QJsonObject &result)
    {
        QStringList out;
        for (const QJsonValue &found : result.value(QStringLiteral("breaks")).toArray()) {
            const QJsonObject o = found.toObject();
            out << o.value(QStringLiteral("class")).toString() + u':' +
                       o.value(QStringLiteral("reference")).toString() + u':' +
                       o.value(QStringLiteral("status")).toString();
        }
        return out;
    }

    // People act through a login of their role, as in production.
    QSqlDatabase as(const QString &groupRole)
    {
        auto db =
            QtSqlConnections::connect(loginAs(groupRole), QStringLiteral("keel-test-") + groupRole);
        EXPECT_TRUE(db.ok()) << qPrintable(db.error().message);
        return db.ok() ? *db : QSqlDatabase();
    }

    // The unresolved breaks as the operator's list shows them, by reference.
    QMap<QString, ReconBreakRow> listed()
    {
        auto rows = ReconQuery::openBreaks(as(QStringLiteral("keel_operator")), 100);
        EXPECT_TRUE(rows.ok()) << qPrintable(rows.error().message);
        QMap<QString, ReconBreakRow> byReference;
        for (const ReconBreakRow &row : rows.ok() ? *rows : QList<ReconBreakRow>())
            byReference.insert(row.reference, row);
        return byReference;
    }

    static ProposalRequest because(ProposalRequest request)
    {
        request.reason = QStringLiteral("settlement desk ticket 4711");
        request.idempotencyKey = ActionDesk::newIdempotencyKey();
        return request;
    }

    // Proposed by an operator and approved by an approver, not yet run: the
    // proposal's number, 0 if either refused.
    qint64 proposeAndApprove(const ProposalRequest &request)
    {
        auto proposal = ActionDesk(as(QStringLiteral("keel_operator"))).propose(because(request));
        EXPECT_TRUE(proposal.ok()) << qPrintable(proposal.error().message);
        if (!proposal.ok())
            return 0;
        const Status approved = ActionDesk(as(QStringLiteral("keel_approver")))
                                    .approve(proposal->id, proposal->contentHash);
        EXPECT_TRUE(approved.ok()) << qPrintable(approved.error().message);
        return approved.ok() ? proposal->id : 0;
    }

    // An approved proposal run by an approver: its outcome.
    ActionExecution runApproved(qint64 proposal)
    {
        auto executed = ActionDesk(as(QStringLiteral("keel_approver"))).execute(proposal);
        EXPECT_TRUE(executed.ok()) << qPrintable(executed.error().message);
        return executed.ok() ? *executed : ActionExecution{};
    }

    // Proposed by an operator, approved by an approver; the approver's
    // execution's outcome.
    ActionExecution approveAndRun(const ProposalRequest &request)
    {
        const qint64 proposal = proposeAndApprove(request);
        return proposal ? runApproved(proposal) : ActionExecution{};
    }

    // Why an operator's proposal was refused, or "" if it was not.
    QString refusalOf(const ProposalRequest &request)
    {
        auto proposal = ActionDesk(as(QStringLiteral("keel_operator"))).propose(because(request));
        return proposal.ok() ? QString() : proposal.error().message;
    }

    // The one outcome of an execution that named one target.
    static TargetOutcome onlyTarget(const ActionExecution &executed)
    {
        EXPECT_EQ(executed.targets.size(), 1);
        return executed.targets.size() == 1 ? executed.targets.first() : TargetOutcome{};
    }

    // The USD payable account of the test's merchant.
    QByteArray merchantPayable()
    {
        return "merchant_payable:" + scalar("SELECT min(merchant_id) FROM keel.charges").toUtf8() +
               ":USD";
    }

    QString takeBacksPosted()
    {
        return scalar(
            "SELECT count(*) FROM keel.ledger_transactions WHERE kind = 'channel_takeback'");
    }

    // The approved `proposal` run through an approver's login of its own,
    // on the calling thread: how many targets it applied, 0 if it could not
    // run. For a test that holds, on another thread, what the run waits for.
    static int executeAsApprover(const ConnectionSettings &approver, qint64 proposal)
    {
        int applied = 0;
        {
            auto db = QtSqlConnections::connect(approver, QStringLiteral("keel-test-aside"));
            if (auto done = db.ok() ? ActionDesk(*db).execute(proposal)
                                    : Result<ActionExecution>(db.error());
                done.ok())
                applied = done->applied;
        }
        QSqlDatabase::removeDatabase(QStringLiteral("keel-test-aside"));
        return applied;
    }

    // keel's capture of 20.00 USD, which the channel reported under
    // `channelsOwn`, a reference keel never sent: past the lag, the run finds
    // a missing_at_keel (its money parked) and a missing_at_channel (the
    // capture parked as owed), one movement. keel's charge id.
    QByteArray oneMovementAsTwoBreaks(const QByteArray &key, const QString &channelsOwn)
    {
        const QByteArray paid = charge("amount=2000&currency=usd", key);
        EXPECT_EQ(backdateBooks(), QStringLiteral("1"));
        m_day = firstPostingDay();
        EXPECT_EQ(import(statement(QStringLiteral("day.csv"),
                                   {channelsOwn +
                                    QStringLiteral(",S1,payment,20.00,USD,0,%1T12:00:00Z")}))
                      .exitCode,
                  0);
        EXPECT_EQ(run().value(QStringLiteral("cases_opened")).toInt(), 2);
        EXPECT_EQ(suspense(), QStringLiteral("0")) << "20.00 held and 20.00 owed";
        return paid;
    }

    // A write-off of the latest case of the break of `reference`.
    ProposalRequest writeOffOfCaseOf(const QByteArray &reference)
    {
        const QString caseId =
            scalar("SELECT max(k.id) FROM keel.suspense_cases k JOIN keel.recon_breaks b "
                   "ON b.id = k.recon_break_id WHERE b.reference = '" +
                   reference + "'");
        ProposalRequest writeOff;
        writeOff.kind = QStringLiteral("case.write_off");
        writeOff.targetType = QStringLiteral("suspense_case");
        writeOff.summary = caseId;
        writeOff.targets << ActionTarget{
            caseId,
            scalar("SELECT xmin::text FROM keel.suspense_cases WHERE id = " + caseId.toUtf8())};
        return writeOff;
    }

    // The open case of the charge `reference`, as an operator's workbench
    // lists it; a row of id 0 if there is none or more than one.
    SuspenseCaseRow openCaseOf(const QByteArray &reference)
    {
        SuspenseCaseFilter filter;
        filter.chargeId = QString::fromUtf8(reference);
        auto rows = SuspenseQuery::queue(as(QStringLiteral("keel_operator")), filter);
        EXPECT_TRUE(rows.ok()) << qPrintable(rows.error().message);
        return rows.ok() && rows->size() == 1 ? rows->first() : SuspenseCaseRow{};
    }

    QString statusOf(const QString &reference)
    {
        return scalar("SELECT string_agg(status, ',') FROM keel.recon_breaks WHERE reference = '" +
                      reference.toUtf8() + "'");
    }

    QString m_service;
    QString m_day;
    QTemporaryDir m_files;
};

// The simulated network under another channel's label, so that what goes
// through it is that channel's to reconcile.
class LabelledChannel final : public Channel {
public:
    LabelledChannel(std::shared_ptr<Channel> network, QString name, QString statementChannel)
        : m_network(std::move(network)), m_name(std::move(name)),
          m_statementChannel(std::move(statementChannel))
    {}
    QString name() const override { return m_name; }
    QString statementChannel() const override { return m_statementChannel; }
    ChannelResult execute(const ChannelRequest &request) override
    {
        return m_network->execute(request);
    }
    ChannelResult query(const ChannelRequest &operation) override
    {
        return m_network->query(operation);
    }
    ChannelResult close(const ChannelRequest &operation) override
    {
        return m_network->close(operation);
    }

private:
    std::shared_ptr<Channel> m_network;
    QString m_name;
    QString m_statementChannel;
};

inline void ReconciliationTest::labelChannel(const QString &name, const QString &statementChannel)
{
    m_remoteChannel = [config = m_channel, name,
                       statementChannel](const ConnectionSettings &settings) {
        return std::make_shared<LabelledChannel>(
            std::make_shared<SimulatedChannel>(settings, config), name, statementChannel);
    };
}

inline QString item(const QByteArray &reference, const char *rest)
{
    return QString::fromUtf8(reference) + QString::fromLatin1(rest);
}

} // namespace keel::test
