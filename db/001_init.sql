-- Initial schema: nodes, edges, the transaction log and embeddings (ARCHITECTURE.md, data model).
-- Migrations are append-only: never edit a file once it has shipped; add the next number.

-- Trigram similarity for fuzzy topic/entity matching. Pinned to public so it outlives a dropped
-- per-test schema and resolves from any search_path that keeps public (openPostgres's does).
create extension if not exists pg_trgm schema public;

create table nodes (
  -- nid is the dense integer key the vector indexes use; id is the public, sortable ULID.
  nid bigint generated always as identity primary key,
  id text not null unique,
  kind text not null default 'memory',
  project_id text not null default 'default',
  memory_type text not null default 'semantic',
  topic text,
  content text not null,
  tags text[] not null default '{}',
  source_uri text,
  importance real not null default 0.5,
  confidence real not null default 1.0,
  metadata jsonb not null default '{}'::jsonb,
  content_hash text not null,
  valid_from timestamptz,
  valid_to timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  version integer not null default 1,
  access_count integer not null default 0,
  last_accessed_at timestamptz,
  tsv tsvector generated always as (
    setweight(to_tsvector('english', coalesce(topic, '')), 'A') ||
    setweight(to_tsvector('english', content), 'B')
  ) stored
);
create index nodes_tsv_idx on nodes using gin (tsv);
create index nodes_project_created_idx on nodes (project_id, created_at desc) where deleted_at is null;
create index nodes_tags_idx on nodes using gin (tags);
create index nodes_content_hash_idx on nodes (project_id, content_hash);

create table edges (
  id text primary key,
  src text not null,
  dst text not null,
  edge_type text not null default 'Relational',
  predicate text not null,
  weight real not null default 1.0,
  confidence real not null default 1.0,
  metadata jsonb not null default '{}'::jsonb,
  valid_from timestamptz,
  valid_to timestamptz,
  created_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index edges_src_idx on edges (src) where deleted_at is null;
create index edges_dst_idx on edges (dst) where deleted_at is null;

-- Every mutation is one transaction row plus one tx_changes row per entity touched, with the
-- entity's image before and after. History, undo, as_of reads and change feeds derive from it.
create table transactions (
  tx_id bigint generated always as identity primary key,
  op text not null,
  actor text,
  rationale text,
  reverted_by bigint references transactions (tx_id),
  created_at timestamptz not null default now()
);

create table tx_changes (
  tx_id bigint not null references transactions (tx_id),
  ord integer not null,
  entity text not null,
  entity_id text not null,
  before jsonb,
  after jsonb,
  primary key (tx_id, ord)
);
create index tx_changes_entity_idx on tx_changes (entity, entity_id, tx_id);

-- Vectors are the truth the in-memory indexes are rebuilt from. feed_seq moves forward on
-- every upsert so index replicas (one per front end) catch up with `where feed_seq > $last`.
-- A null vector is a removal the replicas must apply.
create sequence embedding_feed_seq;
create table embeddings (
  node_nid bigint not null references nodes (nid),
  space text not null,
  model_id text not null,
  dim integer not null,
  vector bytea,
  feed_seq bigint not null default nextval('embedding_feed_seq'),
  updated_at timestamptz not null default now(),
  primary key (node_nid, space)
);
create index embeddings_feed_idx on embeddings (feed_seq);
