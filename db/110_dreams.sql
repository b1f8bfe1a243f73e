-- Dreams (issue 12): one row per trigger_dream / trigger_consolidation run. The changes a dream
-- makes are ordinary logged transactions (one per phase, undoable); this table only records the
-- run: its phases' counts and tx ids, and the abort flag any process can set (a worker elsewhere
-- polls it, since BullMQ cannot cancel across processes).
create table dreams (
  id text primary key,
  project_id text not null,
  -- nrem | rem | full | consolidation
  phase text not null,
  -- queued | running | completed | aborted | failed
  status text not null default 'queued',
  actor text,
  budget jsonb not null default '{}'::jsonb,
  -- [{"phase": "nrem", "tx_id": 12, "counts": {...}, "ms": 40, "stopped_by_budget": false}]
  phases jsonb not null default '[]'::jsonb,
  error text,
  abort_requested_at timestamptz,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create index dreams_project_idx on dreams (project_id, created_at desc);
create index dreams_open_idx on dreams (created_at desc) where status in ('queued', 'running');
