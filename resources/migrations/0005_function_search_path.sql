-- keel's functions run inside other roles' sessions, whose search_path need
-- not contain the keel schema (it did in tests only because the superuser is
-- named keel, matching "$user"). Each function now carries its own.
ALTER FUNCTION ledger_check_balanced() SET search_path = keel, pg_temp;
ALTER FUNCTION reject_change() SET search_path = keel, pg_temp;
ALTER FUNCTION stamp_actor() SET search_path = keel, pg_temp;
ALTER FUNCTION require_rows(bigint, bigint, text) SET search_path = keel, pg_temp;
