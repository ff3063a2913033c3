#pragma once

#include "core/net/HttpResponse.h"
#include "core/saga/SagaService.h"

#include <optional>

namespace keel {

class LibpqConnection;
class StripeReplies;
struct HttpRequest;
struct Merchant;
struct PaymentContext;

// POST /v1/sagas (an inline definition as JSON, Idempotency-Key required),
// POST /v1/tcc (a TCC transaction's branches, run on the same engine),
// GET /v1/sagas/{id} and GET /v1/sagas?status=&limit=&starting_after=.
class SagaEndpoints final : public SagaReplyRenderer {
public:
    SagaEndpoints(const PaymentContext &context, const StripeReplies &replies);

    // POST /v1/sagas, or (`tcc`) POST /v1/tcc with branches instead of steps.
    HttpResponse create(LibpqConnection &connection, const Merchant &merchant,
                        const HttpRequest &request, const std::optional<QByteArray> &key,
                        bool tcc = false) const;
    HttpResponse retrieve(LibpqConnection &connection, const Merchant &merchant,
                          const QString &publicId) const;
    HttpResponse list(LibpqConnection &connection, const Merchant &merchant,
                      const HttpRequest &request) const;

    StoredResponse render(const SagaRecord &saga) const override;

private:
    HttpResponse respond(const SagaOutcome &outcome) const;
    SagaService service(LibpqConnection &connection) const;

    const PaymentContext &m_context;
    const StripeReplies &m_replies;
};

} // namespace keel
