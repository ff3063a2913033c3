-- keel schema v46: a resolution of a case takes the case's break before the
-- case. Runs as keel_owner with search_path keel (set by the migrator).
--
-- A break's resolutions (match, accept, fee adjustment, take-back) lock the
-- break, then its open case, then the charge. A case's resolutions
-- (case.adjust, case.write_off, case.give_back) locked the case first, and
-- only later its break: resolving the case resolves the break
-- (suspense_case_resolves_break) and a give-back's posting names it. Run at
-- the same time on one break, a take-back held the break waiting for the
-- case while a give-back held the case waiting for the break, until the
-- database broke the deadlock by failing one of them. Now a case's
-- resolution takes the breaks of the cases it names first, in id order, so
-- both kinds queue on the break. The functions that do the work are kept
-- as they were, under the names they are called by from here.

ALTER FUNCTION execute_give_back(operator_actions) RENAME TO give_back_with_break_held;
ALTER FUNCTION execute_case_resolution(operator_actions)
    RENAME TO case_resolution_with_break_held;

-- The breaks of the cases a proposal names, locked as a break's resolution
-- locks its break. Ids are read as the case resolutions read them (leading
-- zeros and all). A target that names no case, or a case of no break, takes
-- nothing here; the resolution itself reports it.
CREATE FUNCTION lock_breaks_of_target_cases(proposal operator_actions) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    PERFORM 1 FROM recon_breaks b
    WHERE b.id IN (SELECT k.recon_break_id FROM suspense_cases k
                   JOIN jsonb_array_elements(proposal.targets) t
                     ON k.id = CASE WHEN t ->> 'id' ~ '^[0-9]{1,18}$'
                                    THEN (t ->> 'id')::bigint END)
    ORDER BY b.id
    FOR UPDATE OF b;
END
$$;
REVOKE EXECUTE ON FUNCTION lock_breaks_of_target_cases(operator_actions) FROM PUBLIC;

CREATE FUNCTION execute_give_back(proposal operator_actions) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    PERFORM lock_breaks_of_target_cases(proposal);
    RETURN give_back_with_break_held(proposal);
END
$$;
REVOKE EXECUTE ON FUNCTION execute_give_back(operator_actions) FROM PUBLIC;

CREATE FUNCTION execute_case_resolution(proposal operator_actions) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    PERFORM lock_breaks_of_target_cases(proposal);
    RETURN case_resolution_with_break_held(proposal);
END
$$;
REVOKE EXECUTE ON FUNCTION execute_case_resolution(operator_actions) FROM PUBLIC;
