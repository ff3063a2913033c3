-- Run by `keel migrate` before any migration, every time; idempotent.
-- Roles are cluster-wide, so several databases (or several migrators) may race
-- to create them: a role that appears meanwhile is fine.
DO $bootstrap$
DECLARE
    role_name text;
BEGIN
    FOREACH role_name IN ARRAY ARRAY['keel_owner', 'keel_gateway', 'keel_operator',
                                     'keel_approver', 'keel_auditor', 'keel_sre'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = role_name) THEN
            BEGIN
                EXECUTE format('CREATE ROLE %I NOLOGIN', role_name);
            EXCEPTION WHEN duplicate_object OR unique_violation THEN
                NULL;
            END;
        END IF;
    END LOOP;

    -- The migrating login role switches to keel_owner to create objects, so
    -- tables are owned by a role nobody can log in as.
    IF NOT pg_has_role(current_user, 'keel_owner', 'MEMBER') THEN
        EXECUTE format('GRANT keel_owner TO %I', current_user);
    END IF;
END
$bootstrap$;

CREATE SCHEMA IF NOT EXISTS keel AUTHORIZATION keel_owner;

SET ROLE keel_owner;
CREATE TABLE IF NOT EXISTS keel.schema_migrations (
    version      integer PRIMARY KEY CHECK (version > 0),
    name         text NOT NULL,
    checksum     text NOT NULL CHECK (checksum ~ '^[0-9a-f]{64}$'),
    applied_at   timestamptz NOT NULL DEFAULT now(),
    applied_by   text NOT NULL DEFAULT session_user,
    execution_ms bigint NOT NULL DEFAULT 0
);
RESET ROLE;
