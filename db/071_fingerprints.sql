-- Teleological fingerprints (issue 11): per memory and per space, what UTL measured against the
-- project's other memories when the fingerprint job ran. `model_key` names the spaces' model ids
-- the numbers were computed from, so a model change marks them stale (recomputed by the job).
create table fingerprints (
  node_nid bigint primary key references nodes (nid),
  project_id text not null,
  model_key text not null,
  -- Per space, in the order of `spaces`: purpose alignment, surprise ΔS, coherence ΔC, Johari quadrant.
  spaces text[] not null,
  purpose real[] not null,
  surprise real[] not null,
  coherence real[] not null,
  johari text[] not null,
  -- Learning magnitude L in [0, 1] and the lifecycle stage it was computed in.
  learning real not null,
  stage text not null,
  computed_at timestamptz not null default now()
);
create index fingerprints_project_idx on fingerprints (project_id, learning desc);

-- The store's distribution of k-NN distances per project and space (Welford running moments):
-- ΔS is a new memory's k-NN distance relative to it.
create table space_distance_stats (
  project_id text not null,
  space text not null,
  n bigint not null default 0,
  mean double precision not null default 0,
  m2 double precision not null default 0,
  primary key (project_id, space)
);

-- Which spaces succeed together (update_synergy_matrix): successes of space a and b on the same
-- recorded outcome (a = b: the space alone), per project.
create table synergy (
  project_id text not null,
  space_a text not null,
  space_b text not null,
  successes double precision not null default 0,
  trials double precision not null default 0,
  primary key (project_id, space_a, space_b)
);

-- Named per-space weight profiles (manage_teleological_profile), used by search_graph.
create table teleological_profiles (
  name text primary key,
  weights jsonb not null,
  description text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
