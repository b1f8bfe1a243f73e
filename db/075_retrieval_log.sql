-- What each user-facing retrieval (search, query) returned: the input of the signals that learn
-- from use (co-retrieval for dreams, each space's agreement with the fused ranking for Kuramoto
-- sync, retrieval outcomes for neuromodulation and calibration). Not memory content: it is not in
-- the transaction log, and old rows are pruned (RetrievalLog keeps the newest ones).
create table retrieval_log (
  id bigserial primary key,
  at timestamptz not null default now(),
  session_id text,
  actor text not null,
  tool text not null,
  -- The project filter of the retrieval; null when it searched every project.
  project_id text,
  query text not null,
  -- Fused order: [{"nid": 12, "id": "…", "score": 0.83, "signals": {"E1": 3, "lexical": 1}}],
  -- signals holding each signal's rank of the hit (1-based) among the entries the filters allow.
  hits jsonb not null,
  -- Each signal's own best nids (up to 10), in its order: {"E1": [12, 40, …], "lexical": […]}.
  signal_top jsonb not null
);
create index retrieval_log_at_idx on retrieval_log (at desc);
create index retrieval_log_project_idx on retrieval_log (project_id, at desc);
create index retrieval_log_session_idx on retrieval_log (session_id, at desc) where session_id is not null;
