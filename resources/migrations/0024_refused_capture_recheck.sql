-- A capture keel was told had not happened may have been made by a twin of
-- the request still on its way; the reconciler asks the channel again for an
-- hour after such a refusal. Those charges are Authorized and were touched
-- recently: this index finds them without reading every payment's state.
CREATE INDEX payment_state_authorized ON payment_state (updated_at)
    WHERE state = 'Authorized';
