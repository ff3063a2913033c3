-- The console's saga list reads sagas oldest first in keyset pages, after the
-- stuck ones. Without an index on that order every page sorted the whole
-- table (over half a second at 100,000 sagas); with it a page reads about
-- the rows it shows, at any depth.
-- Runs as keel_owner with search_path keel.
CREATE INDEX sagas_created ON sagas (created_at, id);
