-- E4 (positional space) encodes a memory's order within its project: count(nid < x) per project
-- is an index-only range scan with this index instead of a scan of the project's rows.
create index nodes_project_nid_idx on nodes (project_id, nid);
