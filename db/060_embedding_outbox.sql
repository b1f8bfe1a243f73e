-- The embedding outbox: one row per node whose vectors are owed, written by a trigger in the
-- same transaction as the node itself, so no write path can forget it and no outage of the
-- job queue can lose it. The embed job deletes a row once it has written that version's
-- vectors; a dispatcher (src/services/embedding-outbox.ts) re-enqueues rows whose job never
-- ran: Redis was down at commit, or restarted without persistence and lost the job.
create table embedding_outbox (
  nid bigint primary key,
  version integer not null,
  created_at timestamptz not null default now(),
  -- When a dispatcher last put a job for this row on the queue; null: only the writer's own try.
  queued_at timestamptz,
  dispatches integer not null default 0
);

create function embedding_outbox_owe() returns trigger language plpgsql as $$
begin
  insert into embedding_outbox (nid, version) values (new.nid, new.version)
  on conflict (nid) do update set version = excluded.version, created_at = now(), queued_at = null, dispatches = 0;
  return null;
end
$$;

create trigger nodes_embedding_outbox_insert after insert on nodes
  for each row when (new.deleted_at is null) execute function embedding_outbox_owe();

-- Only a change of what is embedded (embeddingText: topic + content) or a restore owes vectors.
create trigger nodes_embedding_outbox_update after update on nodes
  for each row when (new.deleted_at is null and (
    old.content is distinct from new.content or old.topic is distinct from new.topic or old.deleted_at is not null))
  execute function embedding_outbox_owe();
