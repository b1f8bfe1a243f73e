-- Idempotency keys for every mutating tool, not only `store`: the kit records the key with the
-- call's first transaction (tx_id, entity_id), then the answer it sent (result), so a retry
-- answers the first result. args_hash makes a key reused with other arguments an error instead
-- of a silent replay; call_id tells the call that owns the key from a concurrent one.
alter table idempotency_keys add column args_hash text;
alter table idempotency_keys add column call_id text;
alter table idempotency_keys add column result jsonb;
-- A call whose write ran elsewhere (a job on a worker) or wrote nothing keeps only its answer.
alter table idempotency_keys alter column tx_id drop not null;
alter table idempotency_keys alter column entity_id drop not null;
