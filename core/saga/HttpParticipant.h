#pragma once

#include "core/saga/StepAnswer.h"

#include <QByteArray>
#include <QString>

namespace keel {

// Calls a saga or TCC participant over HTTP the way DTM does, so services
// written for DTM work with keel unchanged: POST the branch's JSON payload to
// its URL with the query parameters gid, trans_type, branch_id and op. A body
// whose "dtm_result" is SUCCESS, FAILURE or ONGOING decides; otherwise 2xx is
// success, 409 a business failure, 425 "ask again later", and anything else
// (5xx, a timeout, a refused connection) is retryable.
class HttpParticipant final {
public:
    struct Call {
        QString url;
        QString gid;
        QString transType; // saga, tcc
        QString branchId;
        QString op; // action, compensate, try, confirm, cancel
        QByteArray payload;
        int timeoutMs = 5000;
    };

    static StepAnswer call(const Call &call);
    // How a participant's reply reads under DTM's conventions.
    static StepAnswer interpret(int status, const QByteArray &body, const QString &transportError);
    // "host:port" of an http:// URL: the unit the per-host limit counts.
    static QString hostOf(const QString &url);
};

} // namespace keel
