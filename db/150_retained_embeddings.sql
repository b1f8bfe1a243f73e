-- Vectors of soft-deleted nodes, kept so that restoring them (restore_from_hash, undo of a
-- forget, merge or delete) puts back the exact vectors and re-indexes them in every space
-- without embedding again. The feed row in `embeddings` is still retracted (vector null), so
-- every index replica drops the key and every reader of `embeddings` sees nothing; the bytes
-- wait here. Only a node with no embedding owed (no embedding_outbox row: its vectors match
-- its text) keeps its vectors. A hard delete of the node drops them (cascade); so does the
-- sweep once the recovery window (30 days) is over, and a restore takes them back.
create table retained_embeddings (
  node_nid bigint not null references nodes (nid) on delete cascade,
  space text not null,
  model_id text not null,
  dim integer not null,
  vector bytea not null,
  retained_at timestamptz not null default now(),
  primary key (node_nid, space)
);
create index retained_embeddings_at_idx on retained_embeddings (retained_at);
