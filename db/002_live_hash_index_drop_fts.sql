-- Exact-duplicate lookups (store's possible_duplicates, push's dedupe) filter live rows of one
-- project by content hash. Without planner statistics (PGlite runs no autovacuum) the planner
-- preferred the partial (project_id, created_at) index and scanned a whole project per lookup,
-- so store latency grew with the store. A partial index on exactly that predicate wins.
-- No query orders a project's nodes by creation time any more (lists page by id through the
-- log), and that index was the one the planner kept picking wrongly: drop it too.
drop index if exists nodes_content_hash_idx;
drop index if exists nodes_project_created_idx;
create index nodes_live_hash_idx on nodes (project_id, content_hash) where deleted_at is null;

-- The lexical signal is the BM25 keyword space (E13) on the index thread now; the generated
-- tsvector and its GIN index only cost time on every write.
drop index if exists nodes_tsv_idx;
alter table nodes drop column if exists tsv;
