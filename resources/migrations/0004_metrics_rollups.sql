-- Per-minute rollups that each keel process upserts every few seconds: the
-- console's dashboards read these (replays and rejections create no business
-- rows, so only the processes can count them). Deltas are added, so any number
-- of processes may write the same minute. Grows with time, not traffic;
-- rows older than eight days are swept.
CREATE TABLE metrics_minute (
    metric    text NOT NULL,        -- 'idempotency.replayed', 'latency.charges_create', ...
    le_micros bigint NOT NULL DEFAULT 0, -- histogram rows: the bucket's upper bound; 0 otherwise
    minute    timestamptz NOT NULL CHECK (minute = date_trunc('minute', minute)),
    source    text NOT NULL,        -- the process (host:pid) that counted
    count     bigint NOT NULL DEFAULT 0 CHECK (count >= 0),
    total     bigint NOT NULL DEFAULT 0, -- summed value: microseconds, or minor units for volumes
    PRIMARY KEY (metric, le_micros, minute, source)
);
-- Dashboards read a time range of a few metrics; the sweep reads by age.
CREATE INDEX metrics_minute_by_minute ON metrics_minute (minute);

GRANT SELECT, INSERT, UPDATE, DELETE ON metrics_minute TO keel_gateway;
GRANT SELECT ON metrics_minute TO keel_auditor, keel_operator, keel_approver, keel_sre;
