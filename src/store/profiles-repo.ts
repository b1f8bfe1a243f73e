import type { Queryable } from './db.js';

export interface ProfileRow {
  name: string;
  weights: Record<string, number>;
  description: string | null;
  updated_at: Date;
}

export async function listProfiles(q: Queryable): Promise<ProfileRow[]> {
  return q.query<ProfileRow & Record<string, unknown>>(`select name, weights, description, updated_at from teleological_profiles order by name`);
}

export async function profileByName(q: Queryable, name: string): Promise<ProfileRow | null> {
  const [row] = await q.query<ProfileRow & Record<string, unknown>>(`select name, weights, description, updated_at from teleological_profiles where name = $1`, [name]);
  return row ?? null;
}

export async function upsertProfile(q: Queryable, p: { name: string; weights: Record<string, number>; description: string | null }): Promise<ProfileRow> {
  const [row] = await q.query<ProfileRow & Record<string, unknown>>(
    `insert into teleological_profiles (name, weights, description) values ($1, $2::jsonb, $3)
     on conflict (name) do update set weights = excluded.weights, description = excluded.description, updated_at = now()
     returning name, weights, description, updated_at`,
    [p.name, JSON.stringify(p.weights), p.description],
  );
  return row!;
}

export async function deleteProfile(q: Queryable, name: string): Promise<boolean> {
  const rows = await q.query(`delete from teleological_profiles where name = $1 returning name`, [name]);
  return rows.length > 0;
}

export interface SynergyRow {
  space_a: string;
  space_b: string;
  successes: number;
  trials: number;
}

/** Adds one outcome: every pair of `tried` spaces gets a trial, every pair of `succeeded` ones a success. */
export async function recordSynergy(q: Queryable, projectId: string, tried: readonly string[], succeeded: readonly string[]): Promise<void> {
  const ok = new Set(succeeded);
  const a: string[] = [];
  const b: string[] = [];
  const s: number[] = [];
  for (const x of tried) {
    for (const y of tried) {
      a.push(x);
      b.push(y);
      s.push(ok.has(x) && ok.has(y) ? 1 : 0);
    }
  }
  if (a.length === 0) return;
  await q.query(
    `insert into synergy (project_id, space_a, space_b, successes, trials)
     select $1, r.a, r.b, r.s, 1 from unnest($2::text[], $3::text[], $4::float8[]) as r(a, b, s)
     on conflict (project_id, space_a, space_b) do update set successes = synergy.successes + excluded.successes, trials = synergy.trials + 1`,
    [projectId, a, b, s],
  );
}

export async function synergyOf(q: Queryable, projectId: string): Promise<SynergyRow[]> {
  const rows = await q.query<SynergyRow & Record<string, unknown>>(`select space_a, space_b, successes, trials from synergy where project_id = $1`, [projectId]);
  return rows.map((r) => ({ ...r, successes: Number(r.successes), trials: Number(r.trials) }));
}

// Undo of profile and synergy writes (transaction-log entity 'signal', ids `profile:<name>` and
// `synergy:<project>`: src/services/signals/undo.ts). Images are the logged JSON of the rows.

export type ProfileImage = Omit<ProfileRow, 'updated_at'> & { updated_at: string };

/** Puts a profile back as logged, or removes it (null). */
export async function restoreProfile(q: Queryable, name: string, target: ProfileImage | null): Promise<ProfileRow | null> {
  if (target === null) {
    await deleteProfile(q, name);
    return null;
  }
  const [row] = await q.query<ProfileRow & Record<string, unknown>>(
    `insert into teleological_profiles (name, weights, description, updated_at) values ($1, $2::jsonb, $3, $4::timestamptz)
     on conflict (name) do update set weights = excluded.weights, description = excluded.description, updated_at = excluded.updated_at
     returning name, weights, description, updated_at`,
    [name, JSON.stringify(target.weights), target.description, target.updated_at],
  );
  return row!;
}

/** A project's whole synergy matrix, in a fixed order (null when it has no row). */
export async function synergyImage(q: Queryable, projectId: string): Promise<{ project_id: string; rows: SynergyRow[] } | null> {
  const rows = (await synergyOf(q, projectId)).sort((a, b) => (a.space_a + ' ' + a.space_b < b.space_a + ' ' + b.space_b ? -1 : 1));
  return rows.length ? { project_id: projectId, rows } : null;
}

/** Replaces a project's synergy rows by a logged image (null: none). */
export async function restoreSynergy(q: Queryable, projectId: string, target: { rows: SynergyRow[] } | null): Promise<void> {
  await q.query(`delete from synergy where project_id = $1`, [projectId]);
  const rows = target?.rows ?? [];
  if (rows.length === 0) return;
  await q.query(
    `insert into synergy (project_id, space_a, space_b, successes, trials)
     select $1, r.a, r.b, r.s, r.t from unnest($2::text[], $3::text[], $4::float8[], $5::float8[]) as r(a, b, s, t)`,
    [projectId, rows.map((r) => r.space_a), rows.map((r) => r.space_b), rows.map((r) => r.successes), rows.map((r) => r.trials)],
  );
}
