import type { Embedder } from '../embed/embedder.js';
import { describeSpaces, isSpaceId, signalWeights, spaceById, type SpaceSummary } from '../embed/spaces/registry.js';
import type { SpaceId } from '../embed/types.js';
import { AppError } from '../errors.js';
import type { Db } from '../store/db.js';
import { fingerprintsByNid, liveFingerprints, type FingerprintRow } from '../store/fingerprints-repo.js';
import { manifestCounts, type ManifestCounts } from '../store/manifest-repo.js';
import { nodeById, type NodeRecord } from '../store/nodes-repo.js';
import { deleteProfile, listProfiles, profileByName, recordSynergy, synergyImage, synergyOf, upsertProfile } from '../store/profiles-repo.js';
import { image, writeTransaction } from './writes.js';
import { modelKey } from './fingerprints.js';
import type { SearchService } from './search.js';
import type { Quadrant } from '../utl/utl.js';

/** Per-space weights as callers write them: space ids (E1 … E13), weight ≥ 0. */
export type SpaceWeights = Partial<Record<SpaceId, number>>;

export interface Profile {
  name: string;
  weights: SpaceWeights;
  description: string;
  builtin: boolean;
}

const defaults = (): SpaceWeights => {
  const bySignal = signalWeights();
  const out: SpaceWeights = {};
  for (const [signal, w] of Object.entries(bySignal)) if (w > 0) out[spaceOfSignal(signal)] = w;
  return out;
};

/** Built-in profiles: the default fusion, and ones that lean on one family of spaces. */
export function builtinProfiles(): Profile[] {
  const base = defaults();
  const make = (name: string, description: string, extra: SpaceWeights): Profile => ({ name, description, weights: { ...base, ...extra }, builtin: true });
  return [
    make('default', 'The fusion search uses: the weights measured on the dev set.', {}),
    make('code', 'Identifiers and paths first (E7), then keywords and meaning.', { E7: 2, E13: 0.5, E1: 0.5 }),
    make('temporal', 'Recent, same-time-of-day and nearby-in-order memories first (E2–E4).', { E2: 0.5, E3: 0.25, E4: 0.25 }),
    make('causal', 'Cause/effect structure (E5) beside meaning and keywords.', { E5: 1 }),
    make('entity', 'Shared names, ids, numbers and dates (E11).', { E11: 1 }),
    // The default weighs E6 and E12 0.5 each (best on LoCoMo dev); at 1 each (bench
    // --parts locomo,quality, bench/results/2026-11-27-calibration) LoCoMo dev R@5/10/25/50 is
    // 66.8/76.6/85.9/91.5 (0.5: 67.4/76.9/86.2/91.2) and the generated set R@5/10/25
    // 0.664/0.742/0.805 (0.5: 0.650/0.708/0.795): paraphrase-heavy queries gain.
    make('expanded', 'GloVe-neighbour expansion (E6) and per-word MaxSim rerank (E12) as heavy as meaning and keywords.', { E6: 1, E12: 1 }),
  ];
}

function spaceOfSignal(signal: string): SpaceId {
  if (isSpaceId(signal)) return signal;
  // Only E13 has a signal name other than its id today ("lexical").
  const found = (['E13'] as SpaceId[]).find((s) => spaceById(s).signal === signal);
  if (!found) throw new Error(`no space has the search signal ${signal}`);
  return found;
}

/** Space weights → search-signal weights (E13 searches as `lexical`). */
export function toSignalWeights(w: SpaceWeights): Record<string, number> {
  return Object.fromEntries(Object.entries(w).map(([space, weight]) => [spaceById(space as SpaceId).signal, weight ?? 0]));
}

export interface GraphHit {
  node: NodeRecord;
  /** Fused score × the learning factor. */
  score: number;
  fused: number;
  learning: number | null;
  signals: Record<string, { rank: number; score: number }>;
}

/** Profile name whose weights come from the project's synergy matrix (update_synergy_matrix). */
export const LEARNED = 'learned';

/** How much L moves a hit: × (1 − LEARNING_SPAN/2 … 1 + LEARNING_SPAN/2); no fingerprint yet = × 1. */
export const LEARNING_SPAN = 0.5;

/**
 * Teleological fingerprints, UTL and profiles as the tools read them. Everything answered here is
 * computed from stored rows: fingerprints (the fingerprint job), the synergy counts (recorded
 * outcomes) and the profiles callers saved.
 */
export class TeleologyService {
  constructor(private readonly deps: { db: Db; embedder: Embedder; search: SearchService }) {}

  async nodeOrThrow(id: string): Promise<NodeRecord> {
    const node = await nodeById(this.deps.db, id);
    if (!node || node.deleted_at) throw new AppError('NODE_NOT_FOUND', `No live memory has id ${id}.`, { id });
    return node;
  }

  async fingerprint(id: string): Promise<{ node: NodeRecord; fingerprint: FingerprintRow | null; stale: boolean }> {
    const node = await this.nodeOrThrow(id);
    const [fingerprint] = await fingerprintsByNid(this.deps.db, [node.nid]);
    return { node, fingerprint: fingerprint ?? null, stale: !!fingerprint && fingerprint.model_key !== modelKey(this.deps.embedder.encoders()) };
  }

  async profiles(): Promise<Profile[]> {
    const stored = (await listProfiles(this.deps.db)).map((p) => ({ name: p.name, weights: p.weights, description: p.description ?? '', builtin: false }));
    const names = new Set(stored.map((p) => p.name));
    return [...builtinProfiles().filter((p) => !names.has(p.name)), ...stored];
  }

  async profile(name: string): Promise<Profile> {
    const stored = await profileByName(this.deps.db, name);
    if (stored) return { name, weights: stored.weights, description: stored.description ?? '', builtin: false };
    const builtin = builtinProfiles().find((p) => p.name === name);
    if (!builtin)
      throw new AppError('INVALID_PARAMS', `No profile named ${name}.`, {
        issues: [{ path: 'profile', message: `unknown profile; known: ${(await this.profiles()).map((p) => p.name).join(', ')}` }],
      });
    return builtin;
  }

  /** The "learned" profile of a project: the synergy matrix's weights, or the default before any outcome. */
  async learnedProfile(projectId: string): Promise<Profile> {
    const { learned, outcomes } = await this.synergy(projectId);
    const weights = outcomes > 0 && Object.keys(learned).length > 0 ? learned : defaults();
    return { name: LEARNED, weights, description: `Weights learned from ${outcomes} recorded outcome(s) in ${projectId}.`, builtin: true };
  }

  async saveProfile(p: { name: string; weights: SpaceWeights; description?: string | undefined }, actor?: string): Promise<Profile> {
    const enabled = new Set(this.deps.embedder.encoders().map((e) => e.space));
    const off = Object.keys(p.weights).filter((s) => !enabled.has(s as SpaceId));
    if (off.length)
      throw new AppError('INVALID_PARAMS', `Spaces without an encoder here: ${off.join(', ')}.`, { issues: [{ path: 'weights', message: `not embedded: ${off.join(', ')}` }] });
    if (!Object.values(p.weights).some((w) => (w ?? 0) > 0))
      throw new AppError('INVALID_PARAMS', 'A profile needs at least one weight above 0.', { issues: [{ path: 'weights', message: 'all zero' }] });
    // In the transaction log (entity signal, `profile:<name>`), so undo takes a save back.
    const { result: row } = await writeTransaction(this.deps.db, 'manage_teleological_profile', { actor: actor ?? null, rationale: `save profile ${p.name}` }, async (tx, log) => {
      const before = await profileByName(tx, p.name);
      const saved = await upsertProfile(tx, { name: p.name, weights: p.weights, description: p.description ?? null });
      log({ entity: 'signal', entityId: `profile:${p.name}`, before: before ? image(before) : null, after: image(saved) });
      return saved;
    });
    return { name: row.name, weights: row.weights, description: row.description ?? '', builtin: false };
  }

  async deleteProfile(name: string, actor?: string): Promise<boolean> {
    const { result } = await writeTransaction(this.deps.db, 'manage_teleological_profile', { actor: actor ?? null, rationale: `delete profile ${name}` }, async (tx, log) => {
      const before = await profileByName(tx, name);
      if (!before || !(await deleteProfile(tx, name))) return false;
      log({ entity: 'signal', entityId: `profile:${name}`, before: image(before), after: null });
      return true;
    });
    return result;
  }

  /**
   * Multi-space search under a profile, re-ranked by UTL: a memory's fused score is scaled by
   * (1 + LEARNING_SPAN·(L − ½)), so of two equally matching memories the one that taught the
   * store more (new and coherent) comes first.
   */
  async searchGraph(q: { text: string; projectId?: string | undefined; profile: string; limit: number }): Promise<{ profile: Profile; hits: GraphHit[] }> {
    const profile = q.profile === LEARNED && q.projectId ? await this.learnedProfile(q.projectId) : await this.profile(q.profile);
    const { hits } = await this.deps.search.hybrid({ text: q.text, limit: q.limit * 2, projectId: q.projectId, weights: toSignalWeights(profile.weights) });
    const fps = new Map(
      (
        await fingerprintsByNid(
          this.deps.db,
          hits.map((h) => h.node.nid),
        )
      ).map((f) => [f.node_nid, f]),
    );
    const out = hits.map((h) => {
      const learning = fps.get(h.node.nid)?.learning ?? null;
      return { node: h.node, fused: h.score, learning, signals: h.signals, score: h.score * (1 + LEARNING_SPAN * ((learning ?? 0.5) - 0.5)) };
    });
    out.sort((a, b) => b.score - a.score || a.node.nid - b.node.nid);
    return { profile, hits: out.slice(0, q.limit) };
  }

  /**
   * Records that `nodeId` was the right answer to `query`: each embedded space is asked alone,
   * and the spaces that ranked the memory in their top `k` succeeded. Pairs that succeed together
   * grow in the synergy matrix; the `learned` weights follow each space's success rate.
   */
  async recordOutcome(o: { query: string; nodeId: string; k: number }, actor?: string): Promise<{ projectId: string; succeeded: SpaceId[]; tried: SpaceId[] }> {
    const node = await this.nodeOrThrow(o.nodeId);
    const tried = this.deps.embedder.encoders().map((e) => e.space);
    const succeeded: SpaceId[] = [];
    for (const space of tried) {
      const { hits } = await this.deps.search.hybrid({ text: o.query, limit: o.k, projectId: node.project_id, weights: { [spaceById(space).signal]: 1 } });
      if (hits.some((h) => h.node.nid === node.nid)) succeeded.push(space);
    }
    // The whole matrix before and after, in the transaction log (entity signal, `synergy:<project>`): undo restores it.
    await writeTransaction(
      this.deps.db,
      'update_synergy_matrix',
      { actor: actor ?? null, rationale: `outcome of ${node.id}: ${succeeded.length} of ${tried.length} spaces succeeded` },
      async (tx, log) => {
        const before = await synergyImage(tx, node.project_id);
        await recordSynergy(tx, node.project_id, tried, succeeded);
        log({ entity: 'signal', entityId: `synergy:${node.project_id}`, before, after: await synergyImage(tx, node.project_id) });
      },
    );
    return { projectId: node.project_id, succeeded, tried };
  }

  /** The 13×13 matrix: (successes together + 1) / (trials + 2) per pair, 0 where never tried. */
  async synergy(projectId: string): Promise<{ spaces: SpaceId[]; matrix: number[][]; outcomes: number; learned: SpaceWeights }> {
    const rows = await synergyOf(this.deps.db, projectId);
    const spaces = this.deps.embedder.encoders().map((e) => e.space);
    const cell = new Map(rows.map((r) => [`${r.space_a}|${r.space_b}`, r]));
    const matrix = spaces.map((a) =>
      spaces.map((b) => {
        const r = cell.get(`${a}|${b}`);
        return r ? Math.round(((r.successes + 1) / (r.trials + 2)) * 1e4) / 1e4 : 0;
      }),
    );
    const outcomes = Math.max(0, ...rows.filter((r) => r.space_a === r.space_b).map((r) => r.trials));
    // Learned weights: a space's smoothed success rate, relative to the best space's.
    const rate = spaces.map((s, i) => matrix[i]![i]!);
    const best = Math.max(...rate, 1e-9);
    const learned: SpaceWeights = {};
    spaces.forEach((s, i) => {
      if (outcomes > 0 && rate[i]! > 0) learned[s] = Math.round((rate[i]! / best) * 1e4) / 1e4;
    });
    return { spaces, matrix, outcomes, learned };
  }

  /** What the store holds: nodes, edges, projects, and each space with its model id and vector count. */
  async manifest(): Promise<ManifestCounts & { spaces: Array<SpaceSummary & { vectors: number }> }> {
    const counts = await manifestCounts(this.deps.db);
    const spaces = describeSpaces(this.deps.embedder.encoders()).map((s) => ({ ...s, vectors: counts.vectorsBySpace[s.id] ?? 0 }));
    return { ...counts, spaces };
  }

  /** UTL over a project's (or the store's) fingerprinted memories. */
  async utlStatus(projectId: string | null): Promise<UtlStatus> {
    const fps = await liveFingerprints(this.deps.db, projectId, 10_000);
    const spaces = this.deps.embedder.encoders().map((e) => e.space);
    const perSpace = spaces.map((space) => {
      const vals = fps.flatMap((f) => {
        const i = f.spaces.indexOf(space);
        return i < 0 ? [] : [{ s: f.surprise[i]!, c: f.coherence[i]!, p: f.purpose[i]!, q: f.johari[i] as Quadrant }];
      });
      const mean = (xs: number[]) => (xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1e4) / 1e4 : null);
      const johari = { open: 0, hidden: 0, blind: 0, unknown: 0 };
      for (const v of vals) johari[v.q]++;
      return { space, memories: vals.length, surprise: mean(vals.map((v) => v.s)), coherence: mean(vals.map((v) => v.c)), purpose: mean(vals.map((v) => v.p)), johari };
    });
    const stages: Record<string, number> = {};
    for (const f of fps) stages[f.stage] = (stages[f.stage] ?? 0) + 1;
    const learning = fps.map((f) => f.learning).sort((a, b) => a - b);
    const q = (p: number) => (learning.length ? Math.round(learning[Math.min(learning.length - 1, Math.floor(p * learning.length))]! * 1e4) / 1e4 : null);
    return { fingerprinted: fps.length, stages, learning: { p10: q(0.1), median: q(0.5), p90: q(0.9) }, spaces: perSpace };
  }
}

export interface UtlStatus {
  fingerprinted: number;
  stages: Record<string, number>;
  learning: { p10: number | null; median: number | null; p90: number | null };
  spaces: Array<{ space: SpaceId; memories: number; surprise: number | null; coherence: number | null; purpose: number | null; johari: Record<Quadrant, number> }>;
}
