-- Diagnostics and admin (issue 10). A quarantine is a `quarantine` record in a node's metadata
-- (written by quarantine_node through the transaction log, so undo and restore_from_hash revert
-- it); memories pinned by the user manifest carry `manifest.path`. Both are looked up by key.
create index nodes_quarantined_idx on nodes (project_id) where deleted_at is null and metadata ? 'quarantine';
create index nodes_manifest_path_idx on nodes ((metadata->'manifest'->>'path')) where deleted_at is null and metadata ? 'manifest';
