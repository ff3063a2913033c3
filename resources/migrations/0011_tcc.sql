-- TCC global transactions run on the saga engine: a try step per branch,
-- then a confirm step per branch; cancel is the try's compensation. The
-- participant sees trans_type = 'tcc' and op = try/confirm/cancel.
ALTER TABLE sagas
    ADD COLUMN trans_type text NOT NULL DEFAULT 'saga' CHECK (trans_type IN ('saga', 'tcc'));
