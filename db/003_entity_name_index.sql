-- relate resolves names to entity nodes (case-insensitive, per project) on every call; without
-- this index that lookup scans every node of the project.
create index nodes_entity_name_idx on nodes (project_id, lower(topic)) where kind = 'entity' and deleted_at is null;
