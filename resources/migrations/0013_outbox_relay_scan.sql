-- The relay no longer asks, per candidate row, for its aggregate's earliest
-- pending row: without fresh statistics the planner answered that by walking
-- the id index, and a burst of events slowed every window to a crawl. It now
-- reads the oldest pending rows in id order, keeps the first of each
-- aggregate, and holds back aggregates with an earlier row waiting for a
-- retry; those are few, and this index holds exactly them.
DROP INDEX outbox_pending_aggregate;
CREATE INDEX outbox_retrying ON outbox (aggregate_type, aggregate_id, id)
    WHERE published_at IS NULL AND parked_at IS NULL AND attempts > 0;
