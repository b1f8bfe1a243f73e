import type { EncoderInfo, IndexKind, SpaceId, SpaceStatus } from '../types.js';
import type { SpaceDefinition } from './define.js';
import { e1Semantic } from './e1-semantic.js';
import { e2TemporalRecent } from './e2-temporal-recent.js';
import { e3TemporalPeriodic } from './e3-temporal-periodic.js';
import { e4TemporalPositional } from './e4-temporal-positional.js';
import { e5Causal } from './e5-causal.js';
import { e6Sparse } from './e6-sparse.js';
import { e7Code } from './e7-code.js';
import { e8Graph } from './e8-graph.js';
import { e9Hdc } from './e9-hdc.js';
import { e10Paraphrase } from './e10-paraphrase.js';
import { e11Entity } from './e11-entity.js';
import { e12LateInteraction } from './e12-late-interaction.js';
import { e13Keyword } from './e13-keyword.js';

/**
 * THE list of embedding spaces: the 13 of seed 001 (contextgraph.md §1). The embedding worker
 * builds an encoder for each implemented one, the index worker picks the index kind each
 * declares, hybrid search fuses them with their weights, and health and the docs list them.
 * Adding a space is one file in this folder plus one line here.
 */
export const SPACES: readonly SpaceDefinition[] = Object.freeze([
  e1Semantic,
  e2TemporalRecent,
  e3TemporalPeriodic,
  e4TemporalPositional,
  e5Causal,
  e6Sparse,
  e7Code,
  e8Graph,
  e9Hdc,
  e10Paraphrase,
  e11Entity,
  e12LateInteraction,
  e13Keyword,
]);

const byId = new Map<SpaceId, SpaceDefinition>();
for (const space of SPACES) {
  if (byId.has(space.id)) throw new Error(`space ${space.id} is listed twice in the registry`);
  byId.set(space.id, space);
}
{
  // Signal names key search hits' `signals`: two spaces under one name would mix their ranks.
  const signals = SPACES.map((s) => s.signal);
  const twice = signals.find((s, i) => signals.indexOf(s) !== i);
  if (twice) throw new Error(`two spaces share the search signal name ${JSON.stringify(twice)}`);
}

export function spaceById(id: SpaceId): SpaceDefinition {
  const space = byId.get(id);
  // SpaceId is a closed union, but ids also arrive from stored rows and tool arguments.
  if (!space) throw new Error(`unknown embedding space ${JSON.stringify(id)} (known: ${SPACES.map((s) => s.id).join(', ')})`);
  return space;
}

export function isSpaceId(value: unknown): value is SpaceId {
  return typeof value === 'string' && byId.has(value as SpaceId);
}

/** The spaces the embedding worker builds encoders for, in registry order. */
export function implementedSpaces(): SpaceDefinition[] {
  return SPACES.filter((s) => s.status === 'implemented');
}

/**
 * The sparse space whose hits share a term with the query (signal `lexical`, E13): search
 * counts its hits as matches, and `lexicalSearch` is BM25 over it.
 */
export const LEXICAL_SIGNAL = 'lexical';
export const LEXICAL_SPACE: SpaceId = (() => {
  const lexical = SPACES.find((s) => s.signal === LEXICAL_SIGNAL);
  if (!lexical || lexical.index !== 'sparse') throw new Error(`one sparse space must carry the ${LEXICAL_SIGNAL} signal`);
  return lexical.id;
})();

/** Fusion weight per search signal name, for every implemented space. */
export function signalWeights(): Record<string, number> {
  return Object.fromEntries(implementedSpaces().map((s) => [s.signal, s.weight]));
}

/** One row per space for health output and docs: what it is, and what (if anything) encodes it here. */
export interface SpaceSummary {
  id: SpaceId;
  name: string;
  purpose: string;
  status: SpaceStatus;
  index: IndexKind;
  weight: number;
  signal: string;
  /** This process's encoder of the space; null for a planned space (or one whose encoder is not enabled). */
  encoder: { model_id: string; dim: number; provider: EncoderInfo['provider'] } | null;
}

export function describeSpaces(encoders: readonly EncoderInfo[] = []): SpaceSummary[] {
  return SPACES.map((s) => {
    const e = encoders.find((x) => x.space === s.id);
    return {
      id: s.id,
      name: s.name,
      purpose: s.purpose,
      status: s.status,
      index: s.index,
      weight: s.weight,
      signal: s.signal,
      encoder: e ? { model_id: e.modelId, dim: e.dim, provider: e.provider } : null,
    };
  });
}
