-- How often and when each memory was last read or written, by anyone: the totals of node_access
-- over every session. They were two columns of `nodes` that every search updated for each hit.
-- `last_accessed_at` is indexed, so none of those updates was a HOT update: each wrote a new
-- version of the whole node row plus an entry in every one of `nodes`' fifteen indexes (GIN on
-- the text and tags included), ~1.9 ms of PGlite per search, and PGlite runs no vacuum, so the
-- indexes of `nodes` only grew (3,000 hit updates: +16% of their size at 10k memories). A narrow
-- table of its own costs a row and two index entries per hit.
create table node_access_totals (
  node_id text primary key,
  access_count integer not null,
  last_accessed_at timestamptz not null
);
create index node_access_totals_recent_idx on node_access_totals (last_accessed_at desc);

insert into node_access_totals (node_id, access_count, last_accessed_at)
select id, access_count, coalesce(last_accessed_at, updated_at) from nodes
 where access_count > 0 or last_accessed_at is not null;

drop index nodes_last_access_idx;
alter table nodes drop column access_count, drop column last_accessed_at;
