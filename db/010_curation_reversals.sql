-- Curation (seed 001 §3.2): every curation transaction hands out a reversal hash that
-- restore_from_hash accepts for 30 days. The hash names the transaction to revert; the nodes it
-- curated are listed so tombstones can show the hash that brings them back.
create table reversals (
  hash text primary key,
  tx_id bigint not null references transactions (tx_id),
  op text not null,
  node_ids text[] not null,
  reason text,
  created_at timestamptz not null default now()
);
create index reversals_tx_idx on reversals (tx_id);
create index reversals_node_ids_idx on reversals using gin (node_ids);

-- search_tombstones lists soft-deleted nodes newest first within the recovery window.
create index nodes_deleted_at_idx on nodes (deleted_at desc) where deleted_at is not null;
