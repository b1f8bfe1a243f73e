-- Global workspace, ego, autonomous services and meta-UTL (issue 12). What a user can undo lives
-- in nodes (a broadcast is the winner's metadata, a north star is a `goal` node, drift correction
-- changes importance), so the transaction log reverts it; these tables hold what is derived.

-- A broadcast in effect is found by this key of the winner's metadata: a partial index keeps
-- get_recent_context from scanning every node for the few broadcast ones.
create index nodes_workspace_broadcast_idx on nodes (project_id) where deleted_at is null and metadata ? 'workspace_broadcast';

-- The store's purpose vector (importance-weighted mean E1 vector) as it was, per project, each
-- time the ego was read after a write: identity continuity compares the present with these.
create table ego_snapshots (
  id bigint generated always as identity primary key,
  project_id text not null,
  last_tx_id bigint not null,
  memories integer not null,
  model_id text not null,
  purpose real[] not null,
  taken_at timestamptz not null default now()
);
create index ego_snapshots_project_idx on ego_snapshots (project_id, id desc);

-- The goal vector of a north star node (kind 'goal'). It is in effect while its node is live, so
-- undoing the bootstrap (which deletes the node) retires it; no foreign key, so a redo that
-- recreates the node finds its vector again.
create table north_stars (
  node_id text primary key,
  project_id text not null,
  model_id text not null,
  vector real[] not null,
  source text not null,
  members integer not null,
  -- Mean alignment of the project's memories to the vector when it was set: the drift baseline.
  baseline real not null,
  created_at timestamptz not null default now()
);
create index north_stars_project_idx on north_stars (project_id, created_at desc);

-- One row per run of an autonomous service (bootstrap, drift correction, λ recalibration).
create table autonomous_runs (
  id bigint generated always as identity primary key,
  service text not null,
  project_id text not null,
  job_id text,
  trigger text not null,
  result jsonb not null,
  finished_at timestamptz not null default now()
);
create index autonomous_runs_service_idx on autonomous_runs (service, id desc);

-- Lifecycle λ refit from observed retrievals (meta-UTL), per project; absent: the stage defaults.
create table utl_lambdas (
  project_id text primary key,
  lambda_s real not null,
  lambda_c real not null,
  fitted_at timestamptz not null default now()
);

-- What meta-UTL observed and did: each recalibration with its before/after λ and correlation.
create table meta_learning_log (
  id bigint generated always as identity primary key,
  project_id text not null,
  event text not null,
  details jsonb not null,
  created_at timestamptz not null default now()
);
create index meta_learning_log_project_idx on meta_learning_log (project_id, id desc);
