-- The relay publishes each aggregate's events in order, also with several
-- relays running: rows fall into 64 buckets by aggregate, and one relay at a
-- time works a bucket (a session advisory lock, released if the relay dies).
ALTER TABLE outbox
    ADD COLUMN bucket smallint GENERATED ALWAYS AS
        ((hashtext(aggregate_type || ':' || aggregate_id) & 63)::smallint) STORED;
-- Whether a row is its aggregate's earliest unpublished one. The relay reads
-- the oldest due rows by outbox_unpublished (id order), which also gives the
-- oldest row for the lag metric; no other partial index on pending rows, so
-- the planner cannot wander off to one when the table's statistics are stale.
CREATE INDEX outbox_pending_aggregate ON outbox (aggregate_type, aggregate_id, id)
    WHERE published_at IS NULL AND parked_at IS NULL;
-- Published rows are swept in small batches by the relay.
GRANT DELETE ON outbox, inbox TO keel_gateway;
CREATE INDEX outbox_published ON outbox (published_at) WHERE published_at IS NOT NULL;

-- Relays wake on this instead of polling; statement level, so a transaction
-- that writes many rows notifies once.
CREATE FUNCTION outbox_notify() RETURNS trigger
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
BEGIN
    PERFORM pg_notify('keel_outbox', '');
    RETURN NULL;
END
$$;
CREATE TRIGGER outbox_notify AFTER INSERT ON outbox
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();
