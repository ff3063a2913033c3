#pragma once

#include "core/Result.h"
#include "core/db/PgSession.h"

namespace keel {

// BEGIN on construction (check begun()), ROLLBACK on destruction unless committed.
class PgTransaction final {
public:
    explicit PgTransaction(PgSession &session) : m_session(session)
    {
        m_status = m_session.exec("BEGIN");
    }
    ~PgTransaction()
    {
        if (!m_done)
            (void)m_session.exec("ROLLBACK");
    }
    Q_DISABLE_COPY_MOVE(PgTransaction)

    const Status &begun() const { return m_status; }
    Status rollback()
    {
        m_done = true;
        return m_session.exec("ROLLBACK");
    }
    Status commit()
    {
        m_done = true;
        return m_session.exec("COMMIT");
    }

private:
    PgSession &m_session;
    Status m_status;
    bool m_done = false;
};

} // namespace keel
