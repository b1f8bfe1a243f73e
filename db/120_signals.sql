-- The learning signals (Kuramoto sync, neuromodulation, threshold calibration) and the evidence
-- they learn from beyond the retrieval log (db/075): what became of what a retrieval showed.

-- One outcome of a memory a retrieval showed: marked relevant or irrelevant (record_feedback) or
-- expanded with hydrate_citation. retrieval_id is the retrieval_log row that showed it (null when
-- none of the caller's recent retrievals did); score and rank are what that retrieval showed, the
-- (confidence, outcome) pairs threshold calibration fits. No foreign key: the log is pruned.
create table retrieval_outcomes (
  id bigserial primary key,
  at timestamptz not null default now(),
  retrieval_id bigint,
  nid bigint not null,
  node_id text not null,
  outcome text not null check (outcome in ('relevant', 'irrelevant', 'hydrated')),
  score double precision,
  rank integer,
  session_id text,
  actor text not null
);
create index retrieval_outcomes_at_idx on retrieval_outcomes (at desc);
create index retrieval_outcomes_retrieval_idx on retrieval_outcomes (retrieval_id);

-- Learned and set state of the signals, one JSON document per subsystem ('kuramoto':
-- coupling, phases, cursor into the retrieval log; 'calibration': the fitted map and thresholds).
create table signal_state (
  key text primary key,
  value jsonb not null,
  updated_at timestamptz not null default now()
);

-- Every change of a signal, set by hand or learned: what, before and after, who, why. The
-- neuromodulator levels are rebuilt from the impulses of the manual rows here plus the outcomes above.
create table signal_adjustments (
  id bigserial primary key,
  at timestamptz not null default now(),
  subsystem text not null check (subsystem in ('sync', 'neuromodulation', 'calibration')),
  target text not null,
  before jsonb,
  after jsonb,
  source text not null,
  -- A neuromodulator adjustment's impulse: the change of its unclamped level (decays from `at`).
  impulse double precision,
  actor text,
  rationale text,
  job_id text
);
create index signal_adjustments_at_idx on signal_adjustments (at desc);
create index signal_adjustments_subsystem_idx on signal_adjustments (subsystem, at desc);
