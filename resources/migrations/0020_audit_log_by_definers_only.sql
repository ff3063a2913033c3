-- Every audit row is written by triggers and definer functions (audit() and
-- the guarded actions' functions), which stamp who acted from the session.
-- The direct INSERT grants of schema v1 let any keel login append a row of
-- its own choosing, such as an "approve" that no approval backs; and the
-- gateway could read the operators' trail. Both go.
-- Runs as keel_owner with search_path keel.
REVOKE INSERT ON audit_log FROM keel_gateway, keel_operator, keel_approver, keel_sre;
REVOKE SELECT ON audit_log FROM keel_gateway;
REVOKE USAGE ON SEQUENCE audit_log_id_seq FROM keel_operator, keel_approver, keel_sre;
