-- Client-chosen idempotency keys of mutating tool calls: recorded in the same transaction as
-- the write, so a retry after a crash between commit and acknowledgement finds the first write
-- and answers it instead of writing again.
create table idempotency_keys (
  tool text not null,
  key text not null,
  tx_id bigint not null,
  -- The entity the first call created or changed, from which its answer is rebuilt.
  entity_id text not null,
  created_at timestamptz not null default now(),
  primary key (tool, key)
);
