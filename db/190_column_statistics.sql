-- ANALYZE gathers no statistics for columns no query filters, joins or sorts on. For an array
-- column it computes element statistics from every element of its 30,000 sampled rows; for
-- jsonb and bytea it reads each sampled value whole. At 100k memories, ANALYZE of
-- `fingerprints` took 920 ms, ~700 of them for its five arrays, and an embedded store runs it
-- on the one connection (pglite-maintenance.ts, each time the table has doubled), so a `store`
-- or `search` behind it waited that long. The planner's row counts, null fractions and the
-- statistics of the columns queries do filter on (node_nid, project_id, model_key, space, ...)
-- are unchanged.
alter table fingerprints
  alter column spaces set statistics 0,
  alter column purpose set statistics 0,
  alter column surprise set statistics 0,
  alter column coherence set statistics 0,
  alter column johari set statistics 0;
alter table tx_changes
  alter column before set statistics 0,
  alter column after set statistics 0;
alter table embeddings alter column vector set statistics 0;
