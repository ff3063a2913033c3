-- The simulated channel stands for a card network, and a network does not
-- forget what it processed when keel's database crashes. As an UNLOGGED table
-- its memory was wiped by crash recovery, so a payment whose answer was lost in
-- the crash was settled as "never reached the network" although it had. Its
-- writes now cost a durable commit, which the gateway benchmark's reference
-- pays as well.
ALTER TABLE sim_channel_operations SET LOGGED;
