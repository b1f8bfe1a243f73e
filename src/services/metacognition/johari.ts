import { SPACES } from '../../embed/spaces/registry.js';
import type { FingerprintRow } from '../../store/fingerprints-repo.js';
import { JOHARI_THRESHOLD, quadrantOf, type Quadrant } from '../../utl/utl.js';

export interface JohariSpace {
  space: string;
  name: string;
  /** computed: from the node's fingerprint; not_embedded: the space has no encoder here; pending: no fingerprint yet. */
  status: 'computed' | 'not_embedded' | 'pending';
  quadrant: Quadrant | null;
  surprise: number | null;
  coherence: number | null;
  /** Distance of (ΔS, ΔC) from the nearer quadrant boundary, scaled to [0, 1]: 0 on a boundary. */
  confidence: number;
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;
/** Known = the space has seen things like it (low ΔS); what a quadrant says about it. */
const known = (q: Quadrant) => q === 'open' || q === 'hidden';
const MEANING: Record<Quadrant, string> = {
  open: 'known and connected',
  hidden: 'known but isolated',
  blind: 'new and isolated',
  unknown: 'new but connected',
};

/**
 * Families whose disagreement means something to an agent: the seed's "Open(E1) but Blind(E5):
 * knows WHAT but not WHY", and the same for HOW (code), WHO (entities) and WHEN (time).
 */
const CONTRASTS: Array<{ a: string[]; b: string[]; aSays: string; bSays: string }> = [
  { a: ['E1'], b: ['E5'], aSays: 'WHAT', bSays: 'WHY' },
  { a: ['E1'], b: ['E7'], aSays: 'WHAT', bSays: 'HOW (code)' },
  { a: ['E1'], b: ['E11'], aSays: 'WHAT', bSays: 'WHO/WHICH (names)' },
  { a: ['E1'], b: ['E2', 'E3', 'E4'], aSays: 'WHAT', bSays: 'WHEN' },
  { a: ['E13'], b: ['E1'], aSays: 'its exact words', bSays: 'its meaning' },
];

/**
 * The Johari classification of one memory in each of the 13 spaces, from its fingerprint (ΔS and
 * ΔC per space, src/services/utl.ts): the quadrant, how far it sits from the boundaries, and
 * insights where spaces disagree about whether the memory is known.
 */
export function johariOf(fp: FingerprintRow | null, embedded: ReadonlySet<string>): { spaces: JohariSpace[]; insights: string[] } {
  const spaces: JohariSpace[] = SPACES.map((s) => {
    const i = fp ? fp.spaces.indexOf(s.id) : -1;
    if (!fp || i < 0) return { space: s.id, name: s.name, status: embedded.has(s.id) ? 'pending' : 'not_embedded', quadrant: null, surprise: null, coherence: null, confidence: 0 };
    const surprise = fp.surprise[i]!;
    const coherence = fp.coherence[i]!;
    const margin = Math.min(Math.abs(surprise - JOHARI_THRESHOLD), Math.abs(coherence - JOHARI_THRESHOLD));
    return {
      space: s.id,
      name: s.name,
      status: 'computed',
      quadrant: quadrantOf(surprise, coherence),
      surprise: round(surprise),
      coherence: round(coherence),
      confidence: round(Math.min(1, margin / JOHARI_THRESHOLD)),
    };
  });
  return { spaces, insights: insightsOf(spaces) };
}

function insightsOf(spaces: readonly JohariSpace[]): string[] {
  const computed = spaces.filter((s) => s.quadrant !== null);
  if (computed.length === 0) return [];
  const out: string[] = [];
  const counts = new Map<Quadrant, string[]>();
  for (const s of computed) counts.set(s.quadrant!, [...(counts.get(s.quadrant!) ?? []), s.space]);
  const [mainQ, mainSpaces] = [...counts].sort((a, b) => b[1].length - a[1].length)[0]!;
  out.push(`Mostly ${cap(mainQ)} (${MEANING[mainQ]}) in ${mainSpaces.length} of ${computed.length} spaces: ${mainSpaces.join(', ')}.`);
  const by = new Map(computed.map((s) => [s.space, s]));
  for (const c of CONTRASTS) {
    const a = c.a.map((id) => by.get(id)).filter((s): s is JohariSpace => !!s);
    const b = c.b.map((id) => by.get(id)).filter((s): s is JohariSpace => !!s);
    if (!a.length || !b.length) continue;
    const aKnown = a.every((s) => known(s.quadrant!));
    const bKnown = b.every((s) => known(s.quadrant!));
    const aNew = a.every((s) => !known(s.quadrant!));
    const bNew = b.every((s) => !known(s.quadrant!));
    const label = (xs: JohariSpace[]) => xs.map((s) => `${cap(s.quadrant!)}(${s.space})`).join('/');
    if (aKnown && bNew) out.push(`${label(a)} but ${label(b)}: knows ${c.aSays} but not ${c.bSays}.`);
    else if (aNew && bKnown) out.push(`${label(a)} but ${label(b)}: knows ${c.bSays} but not ${c.aSays}.`);
  }
  const isolated = computed.filter((s) => s.quadrant === 'hidden' || s.quadrant === 'blind');
  if (isolated.length === computed.length) out.push('Isolated in every space (low coherence): linking it (relate, build_edges) or confirming it with the user would place it.');
  const shaky = computed.filter((s) => s.confidence < 0.1);
  if (shaky.length) out.push(`On a quadrant boundary (confidence < 0.1) in ${shaky.map((s) => s.space).join(', ')}: a few more memories may move it.`);
  return out;
}

const cap = (q: string) => q[0]!.toUpperCase() + q.slice(1);
