#pragma once

#include "core/Result.h"
#include "core/db/LibpqConnection.h"

namespace keel {

// BEGIN on construction (check begun()), ROLLBACK on destruction unless
// committed. A Pipelined transaction sends nothing until commit(), then all of
// it in one round trip; its statements return no rows (see LibpqConnection).
class PgTransaction final {
public:
    enum Mode { Interactive, Pipelined };

    explicit PgTransaction(LibpqConnection &session, Mode mode = Interactive)
        : m_session(session), m_mode(mode)
    {
        if (m_mode == Pipelined)
            m_session.beginPipelined();
        else
            m_status = m_session.exec("BEGIN");
    }
    ~PgTransaction()
    {
        if (!m_done)
            (void)rollback();
    }
    Q_DISABLE_COPY_MOVE(PgTransaction)

    const Status &begun() const { return m_status; }
    Status rollback()
    {
        m_done = true;
        if (m_mode == Pipelined) {
            m_session.discardPipelined();
            return {};
        }
        return m_session.exec("ROLLBACK");
    }
    Status commit()
    {
        m_done = true;
        return m_mode == Pipelined ? m_session.commitPipelined() : m_session.exec("COMMIT");
    }

private:
    LibpqConnection &m_session;
    Mode m_mode;
    Status m_status;
    bool m_done = false;
};

} // namespace keel
