-- Navigation (seed 001 §3.3): per-session reads for get_recent_context, fitted Poincaré-ball
-- coordinates for entailment_query, and the lookups the automatic edge jobs make.

-- One row per (session, node): when the session last read or wrote the node. get_recent_context
-- with session_only reads it; without session_only it reads nodes.last_accessed_at.
create table node_access (
  session_id text not null,
  node_id text not null,
  project_id text not null,
  accessed_at timestamptz not null default now(),
  access_count integer not null default 1,
  primary key (session_id, node_id)
);
create index node_access_recent_idx on node_access (session_id, accessed_at desc);
create index nodes_last_access_idx on nodes (last_accessed_at desc) where deleted_at is null and last_accessed_at is not null;

-- Poincaré-ball coordinates of the nodes of a project's Hierarchical edges, per space the fit was
-- seeded from. hierarchy_sig is a digest of the edge set the fit saw: when the live edges no
-- longer match it, the coordinates are stale and the fit job is enqueued again.
create table hyperbolic_coords (
  project_id text not null,
  space text not null,
  node_id text not null,
  coords real[] not null,
  hierarchy_sig text not null,
  job_id text,
  fitted_at timestamptz not null default now(),
  primary key (project_id, space, node_id)
);

-- Temporal edges link consecutive memories of one source; the job reads a source's memories in order.
create index nodes_source_order_idx on nodes (project_id, source_uri, created_at) where deleted_at is null and source_uri is not null;
create index edges_type_idx on edges (edge_type) where deleted_at is null;
