-- A saga's case names the charge its steps made. A charge step whose answer
-- was lost has made its charge before the saga names it; a case opened then
-- without it held none of that charge's money, and when the reconciler
-- captured the charge the merchant kept it for an order that never completed
-- (found by the chaos suite's operator desk). The charge is found by the order
-- number its step gave it: the saga's public id, a dot, the step's index.
CREATE OR REPLACE FUNCTION suspense_cases_admit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    IF NEW.charge_id IS NOT NULL AND (NEW.saga_id IS NOT NULL OR NEW.amount > 0)
       AND channel_operation_in_flight(NEW.charge_id) THEN
        RAISE EXCEPTION 'charge % has a channel operation in flight: a case opened now would '
                        'not hold what that operation moves', NEW.charge_id
            USING ERRCODE = 'KL425';
    END IF;
    IF NEW.saga_id IS NOT NULL AND NEW.charge_id IS NULL AND EXISTS (
        SELECT 1 FROM sagas s JOIN saga_steps t ON t.saga_id = s.id
        JOIN charges c ON c.merchant_id = s.merchant_id
                      AND c.out_trade_no = s.public_id || '.' || t.step_index
        WHERE s.id = NEW.saga_id) THEN
        RAISE EXCEPTION 'saga % made a charge its case does not name', NEW.saga_id
            USING ERRCODE = 'KL425';
    END IF;
    IF NEW.charge_id IS NOT NULL THEN
        NEW.merchant_id := (SELECT merchant_id FROM charges WHERE id = NEW.charge_id);
    END IF;
    RETURN NEW;
END
$$;
