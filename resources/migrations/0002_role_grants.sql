-- What each keel role may do (DESIGN.md §5). Login roles are members of these
-- group roles; none of them owns a table (keel_owner does, and cannot log in).
-- Grants are explicit per table: a table added later gets nothing until a
-- migration says so.

GRANT USAGE ON SCHEMA keel TO keel_gateway, keel_operator, keel_approver, keel_auditor, keel_sre;
GRANT SELECT ON schema_migrations TO keel_gateway, keel_operator, keel_approver, keel_auditor,
    keel_sre;

-- Auditors read everything but signing secrets, and write nothing.
GRANT SELECT ON currencies, merchants, idempotency_keys, charges, payment_state, payment_events,
    refunds, ledger_accounts, ledger_transactions, ledger_entries, sagas, saga_steps, saga_events,
    tcc_barrier, outbox, inbox, suspense_cases, operator_actions, approvals, audit_log
    TO keel_auditor;

-- The gateway, worker and relay processes.
GRANT SELECT ON currencies, merchants, merchant_secrets, ledger_accounts TO keel_gateway;
GRANT SELECT, INSERT, UPDATE, DELETE ON idempotency_keys TO keel_gateway;
GRANT SELECT, INSERT, UPDATE ON charges, payment_state, refunds, sagas, saga_steps, outbox
    TO keel_gateway;
GRANT SELECT, INSERT ON payment_events, ledger_transactions, ledger_entries, saga_events,
    tcc_barrier, inbox, suspense_cases, audit_log TO keel_gateway;
GRANT DELETE ON outbox, inbox TO keel_gateway; -- retention sweeps of published/old rows
GRANT INSERT ON ledger_accounts TO keel_gateway; -- merchant accounts are opened on first use

-- Operators (settlement staff) read the business tables and propose actions;
-- the money moves only when an approved action is executed through keel_core.
GRANT SELECT ON currencies, merchants, charges, payment_state, payment_events, refunds,
    ledger_accounts, ledger_transactions, ledger_entries, sagas, saga_steps, saga_events,
    suspense_cases, operator_actions, approvals, audit_log TO keel_operator;
GRANT INSERT ON operator_actions, audit_log TO keel_operator;
GRANT UPDATE (owner, status) ON suspense_cases TO keel_operator;

-- Approvers read the same and decide on others' proposals.
GRANT SELECT ON currencies, merchants, charges, payment_state, payment_events, refunds,
    ledger_accounts, ledger_transactions, ledger_entries, sagas, saga_steps, saga_events,
    suspense_cases, operator_actions, approvals, audit_log TO keel_approver;
GRANT INSERT ON approvals, audit_log TO keel_approver;

-- SREs watch and retry, and move no money.
GRANT SELECT ON currencies, payment_state, sagas, saga_steps, saga_events, outbox, inbox,
    suspense_cases, audit_log TO keel_sre;
GRANT UPDATE (next_attempt_at) ON sagas, saga_steps TO keel_sre;
GRANT UPDATE (next_attempt_at, attempts, parked_at) ON outbox TO keel_sre;
GRANT INSERT ON audit_log TO keel_sre;

-- Identity columns draw from sequences.
GRANT USAGE ON ALL SEQUENCES IN SCHEMA keel TO keel_gateway;
GRANT USAGE ON SEQUENCE operator_actions_id_seq TO keel_operator;
GRANT USAGE ON SEQUENCE approvals_id_seq TO keel_approver;
GRANT USAGE ON SEQUENCE audit_log_id_seq TO keel_operator, keel_approver, keel_sre;
