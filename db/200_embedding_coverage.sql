-- Per embedding space, the model under which every live node was last found to have its vector.
-- From then on a node can only lack that vector while it owes it in `embedding_outbox` (the
-- trigger of db/060 writes the debt with the node), so start-up reads the outbox instead of
-- searching all nodes for each space: 13 anti-joins over every node took 4.9 s at 100k
-- memories and grew with the store, before the server could answer. A space whose model
-- changed (or was never checked) is searched in full, and recorded once that finds nothing.
-- Deleting these rows makes the next start search every space again.
create table embedding_coverage (
  space text primary key,
  model_id text not null,
  checked_at timestamptz not null default now()
);
