-- keel schema v33: the console pages through open breaks by keyset.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- The Reconciliation view lists unresolved breaks oldest day first, then by
-- channel, class, kind and reference, a page at a time. With this index each
-- page is read in that order from where the last ended, however many breaks
-- are open, instead of sorting them all for every page.
CREATE INDEX recon_breaks_open_in_order
    ON recon_breaks (business_date, channel, class, kind, reference)
    WHERE status <> 'resolved';
