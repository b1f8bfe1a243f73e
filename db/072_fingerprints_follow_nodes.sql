-- A fingerprint is derived from its node: when undo, restore or a hard forget deletes the node
-- row, its fingerprint goes with it (071's plain foreign key made those deletes fail).
alter table fingerprints drop constraint if exists fingerprints_node_nid_fkey;
alter table fingerprints add constraint fingerprints_node_nid_fkey foreign key (node_nid) references nodes (nid) on delete cascade;
