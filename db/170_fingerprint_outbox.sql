-- Fingerprints owed: one row per memory whose vectors the embed job wrote and whose fingerprint
-- the fingerprint job has not computed since. The job used to find its work by scanning the
-- project's every memory for a missing or stale fingerprint, twice per run, so each `store` cost
-- O(project size): 6.7 ms at 1k, 54 ms at 10k and ~540 ms at 100k of PGlite time.
create table fingerprint_outbox (
  nid bigint primary key,
  project_id text not null
);
create index fingerprint_outbox_project_idx on fingerprint_outbox (project_id, nid);

-- What the scan would have found at this point: live, embedded memories without a fingerprint.
-- Stale ones (another model key) are owed at start-up (src/app.ts), where the key is known.
insert into fingerprint_outbox (nid, project_id)
select n.nid, n.project_id from nodes n
 where n.deleted_at is null
   and not exists (select 1 from fingerprints f where f.node_nid = n.nid)
   and exists (select 1 from embeddings e where e.node_nid = n.nid and e.vector is not null);
