-- The settlement staff's suspense workbench: a case is taken by one person,
-- carries notes and references, and is past its deadline after
-- ops_policy.case_deadline. Taking and noting are audited like every action.
-- Runs as keel_owner with search_path keel.

ALTER TABLE ops_policy
    ADD COLUMN case_deadline interval NOT NULL DEFAULT interval '3 days'
        CHECK (case_deadline > interval '0');

CREATE TABLE suspense_case_notes (
    id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_id   bigint NOT NULL REFERENCES suspense_cases (id),
    author    text NOT NULL DEFAULT session_user,
    at        timestamptz NOT NULL DEFAULT now(),
    note      text NOT NULL CHECK (length(btrim(note)) BETWEEN 1 AND 4000),
    reference text CHECK (length(reference) <= 200)
);
CREATE INDEX suspense_case_notes_case ON suspense_case_notes (case_id, id);

CREATE FUNCTION suspense_case_notes_admit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    NEW.author := session_user;
    NEW.at := now();
    PERFORM audit('case.note', 'suspense_case', NEW.case_id::text,
                  jsonb_build_object('note', NEW.note, 'reference', NEW.reference));
    RETURN NEW;
END
$$;
CREATE TRIGGER suspense_case_notes_admit BEFORE INSERT ON suspense_case_notes
    FOR EACH ROW EXECUTE FUNCTION suspense_case_notes_admit();
CREATE TRIGGER suspense_case_notes_immutable BEFORE UPDATE OR DELETE ON suspense_case_notes
    FOR EACH ROW EXECUTE FUNCTION reject_change();

-- Who works a case is the session user who took it, never a value typed in:
-- operators lose their direct UPDATE of owner and status for take_case().
REVOKE UPDATE (owner, status) ON suspense_cases FROM keel_operator;

CREATE FUNCTION take_case(case_id bigint) RETURNS suspense_cases
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    taken suspense_cases;
BEGIN
    IF NOT pg_has_role(session_user, 'keel_operator', 'USAGE') THEN
        RAISE EXCEPTION '% may not take suspense cases: that is keel_operator''s work',
            session_user
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    SELECT * INTO taken FROM suspense_cases WHERE id = case_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no suspense case %', case_id USING ERRCODE = 'KL404';
    END IF;
    IF taken.status NOT IN ('open', 'in_review') THEN
        RAISE EXCEPTION 'case % is %', case_id, taken.status USING ERRCODE = 'KL409';
    END IF;
    UPDATE suspense_cases SET owner = session_user, status = 'in_review'
    WHERE id = case_id RETURNING * INTO taken;
    PERFORM audit('case.take', 'suspense_case', case_id::text,
                  jsonb_build_object('owner', session_user));
    RETURN taken;
END
$$;
REVOKE EXECUTE ON FUNCTION take_case(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION take_case(bigint) TO keel_operator;

GRANT SELECT ON suspense_case_notes TO keel_operator, keel_approver, keel_auditor, keel_sre;
GRANT INSERT ON suspense_case_notes TO keel_operator, keel_approver;
GRANT USAGE ON SEQUENCE suspense_case_notes_id_seq TO keel_operator, keel_approver;
