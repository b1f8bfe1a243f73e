-- Collections (seed 004's `collection` on push and search): named namespaces inside a project.
-- Every node belongs to one ('default' unless given); a collection other than 'default' is
-- declared by new_collection as a row here, logged as the transaction-log entity 'collection',
-- so history shows it and undo removes it. Dedupe by content hash is per (project, collection).
alter table nodes add column collection text not null default 'default';
create index nodes_project_collection_idx on nodes (project_id, collection) where deleted_at is null;

create table collections (
  id text primary key,
  project_id text not null,
  name text not null,
  description text,
  created_at timestamptz not null default now(),
  unique (project_id, name)
);
